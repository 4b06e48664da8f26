"""Advantage: which card may be dropped on, or exchanged for, a centre pile.

The rules (``rules/advantage.md``), for a card X and a pile top T:

- drop: same colour, or same rank, or X an ace of T's colour, or X a ten (a ten goes on
  anything);
- exchange: same colour, or same rank, or X an ace of T's colour, or T a ten (anything may be
  exchanged for a pile topped by a ten);
- with ``strict_colours`` the colour clause does not join a face card (J Q K) with a number
  card (2–10); an ace of the colour joins both groups (so X or T being an ace of the same
  colour always matches).

The answers are precomputed into tables indexed by card, because legal moves are asked for on
every step of thousands of playouts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from bot.games.cards import ACE, JACK, KING, Card, standard_deck

TEN: Final = 10

_DECK: Final = tuple(standard_deck())
# Cards are interned (one object per rank and suit), so the object's id is a cheap exact key;
# hashing a Card goes through Enum.__hash__, a Python-level call, on every lookup.
_INDEX: Final = {id(c): i for i, c in enumerate(_DECK)}


def _group(c: Card) -> int:
    """0 for number cards 2–10, 1 for faces J Q K, 2 for aces (which join both groups)."""
    if c.rank == ACE:
        return 2
    return 1 if JACK <= c.rank <= KING else 0


def _colour_match(x: Card, t: Card, strict: bool) -> bool:
    assert x.suit is not None and t.suit is not None
    if x.suit.is_red != t.suit.is_red:
        return False
    if not strict:
        return True
    gx, gt = _group(x), _group(t)
    return gx == gt or gx == 2 or gt == 2


def drop_rule(x: Card, t: Card, strict: bool) -> bool:
    """May ``x`` be dropped on a pile topped by ``t``? (Computed from the rule text.)"""
    # "X is an ace of T's colour" is already covered by the colour clause: with strict
    # colours an ace joins both groups, so it stays true there too.
    return x.rank == TEN or x.rank == t.rank or _colour_match(x, t, strict)


def exchange_rule(x: Card, t: Card, strict: bool) -> bool:
    """May ``x`` be exchanged for a pile topped by ``t``? (Computed from the rule text.)"""
    return t.rank == TEN or x.rank == t.rank or _colour_match(x, t, strict)


def _table(rule: Callable[[Card, Card, bool], bool], strict: bool) -> tuple[bytes, ...]:
    return tuple(bytes(1 if rule(x, t, strict) else 0 for x in _DECK) for t in _DECK)


# _DROP[strict][index(top)][index(card)] == 1 when the card may be dropped on that top.
_DROP: Final = (_table(drop_rule, False), _table(drop_rule, True))
_EXCHANGE: Final = (_table(exchange_rule, False), _table(exchange_rule, True))


# Sort key per card index: rank first, then suit in the order ♠ ♥ ♦ ♣ ("lowest" in the rules).
_ORDER: Final = tuple(c.rank * 4 + c.suit.order for c in _DECK if c.suit is not None)


def index(c: Card) -> int:
    """The card's position 0..51 in the standard deck order."""
    return _INDEX[id(c)]


def order(c: Card) -> int:
    """Sort key: rank 2..A, then suit ♠ ♥ ♦ ♣."""
    return _ORDER[_INDEX[id(c)]]


def can_drop(x: Card, top: Card, strict: bool) -> bool:
    return _DROP[strict][_INDEX[id(top)]][_INDEX[id(x)]] == 1


def can_exchange(x: Card, top: Card, strict: bool) -> bool:
    return _EXCHANGE[strict][_INDEX[id(top)]][_INDEX[id(x)]] == 1


def drop_table(top: Card, strict: bool) -> bytes:
    """Per card index: 1 when that card may be dropped on ``top``."""
    return _DROP[strict][_INDEX[id(top)]]


def exchange_table(top: Card, strict: bool) -> bytes:
    """Per card index: 1 when that card may be exchanged for a pile topped by ``top``."""
    return _EXCHANGE[strict][_INDEX[id(top)]]
