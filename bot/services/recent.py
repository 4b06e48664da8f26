"""A map that remembers only so much: the entries used most recently.

Whatever the bot keeps in memory by chat or by user (a language chosen, whether it may pin in
a group, when a person last pressed) would otherwise grow with every chat it has ever seen.
What falls out of a :class:`Recent` is only forgotten, never wrong: each user asks the database
again, or takes the safe default.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator, MutableMapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: Entries kept by default: far more than are active at once (each is some 100 bytes).
SIZE = 10_000


class Recent(MutableMapping[K, V]):
    """The ``size`` entries written or read most recently; the oldest go first."""

    def __init__(self, size: int = SIZE) -> None:
        if size < 1:
            raise ValueError("a Recent map keeps at least one entry")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._entries[key]
        self._entries.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        del self._entries[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
