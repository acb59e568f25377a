"""A bounded memo shared by a server process's threads: what the screens and the printed
sheets make from the same inputs again and again (HTML, a round's breakdown lines)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable


class Memo:
    """A bounded memo of what is made from hashable inputs (least recently used first
    out), shared by a server process's threads."""

    def __init__(self, size: int):
        self.size = size
        self._made: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, make: Callable[[], object]):
        with self._lock:
            found = self._made.get(key)
            if found is not None:
                self._made.move_to_end(key)
                return found
        found = make()
        with self._lock:
            self._made[key] = found
            while len(self._made) > self.size:
                self._made.popitem(last=False)
        return found

    def __len__(self) -> int:
        return len(self._made)
