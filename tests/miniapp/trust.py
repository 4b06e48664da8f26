"""What the trust tests of every game's page read a frame with: each card it names.

A frame is JSON (as the socket writes it); a card hidden from its reader must not stand in it
anywhere — a value, a key (a seat's plays are keyed by card), or a move's code — nor in the
words the chat would use for it. The tests compute what is hidden from the game's state and
compare it with what these helpers find.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: A card's code, as a view names it (``XJ``: a joker).
CARD = re.compile(r"[2-9TJQKA][shdc]|XJ")


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys and all."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value (a string that is exactly one)."""
    return {text for text in strings(value) if CARD.fullmatch(text)}
