"""A phone's page as static/app.js keeps it, for the benches: each answer's holes filled
with the phone's own copies of those parts, its out-of-band elements put in place of
those of the same id; the parts it then shows are the ones it names (``have``), those
inside parts it kept included, as a phone names them."""

from __future__ import annotations

import re

HOLE = re.compile(
    r'<i data-frag-kept="([0-9a-f]{16})" hidden></i>|<g data-frag-kept="([0-9a-f]{16})"></g>'
)
PART = re.compile(r'data-frag="([0-9a-f]{16})"')
OUT_OF_BAND = re.compile(r'<[a-zA-Z][^>]*\bhx-swap-oob="true"[^>]*>')
ID = re.compile(r'\bid="([^"]+)"')


def element_at(html: str, at: int) -> tuple[int, int]:
    """Where the element whose start tag holds the position ``at`` begins and ends."""
    start = html.rfind("<", 0, at)
    name = re.match(r"<([a-zA-Z0-9]+)", html[start:]).group(1)
    depth = 0
    for tag in re.compile(rf"<(/?){name}(?=[\s/>])[^>]*>", re.I).finditer(html, start):
        if not tag.group(1) and tag.group(0).endswith("/>"):
            if depth == 0:
                return start, tag.end()
            continue
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return start, tag.end()
    raise ValueError(f"<{name}> at {start} is not closed")


class Phone:
    """A phone at a table: its page, and the parts of it it keeps."""

    def __init__(self, page: str):
        self.page = page

    def have(self) -> str:
        """The parts the page shows, as a tap or a poll names them."""
        return " ".join(PART.findall(self.page))

    def receive(self, answer: str) -> None:
        """An answer swapped in: its holes filled from the page as it was, then each of
        its out-of-band elements put in place of the page's of the same id."""
        parts = {}
        for found in PART.finditer(self.page):
            start, end = element_at(self.page, found.start())
            parts[found.group(1)] = self.page[start:end]
        filled = HOLE.sub(lambda hole: parts[hole.group(1) or hole.group(2)], answer)
        for tag in OUT_OF_BAND.finditer(filled):
            start, end = element_at(filled, tag.start() + 1)
            new = filled[start:end].replace(' hx-swap-oob="true"', "", 1)
            name = ID.search(tag.group(0)).group(1)
            where = self.page.find(f'id="{name}"')
            if where < 0:
                continue  # nothing of that id on this page
            old_start, old_end = element_at(self.page, where)
            self.page = self.page[:old_start] + new + self.page[old_end:]
