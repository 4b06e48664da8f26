"""Playing cards shared by every game: suits, ranks, jokers, decks and seeded shuffles.

Cards are interned: there is exactly one ``Card`` object per (rank, suit) — ``Card(rank, suit)``
hands back the existing one — so a card is equal only to itself, hashing is by identity (both
done in C, which the engines' sets, dicts and ``in`` tests lean on), and a two-deck game simply
holds the same object twice. Each card has a two-character ``code``
(``"Ts"`` is the ten of spades, ``"XJ"`` a joker) used in stored state, the action log and
callback data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from random import Random
from typing import Final


class Suit(Enum):
    """The four suits, in the tie-break order ♠ ♥ ♦ ♣ used by every game."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

    # Members are singletons and compare by identity: hash them so, in C (Enum's own
    # ``__hash__`` is Python code hashing the name, and cards and suits are dict keys
    # everywhere in the engines).
    __hash__ = object.__hash__

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def order(self) -> int:
        """Position in the tie-break order ♠ ♥ ♦ ♣ (0–3)."""
        return _SUIT_ORDER[self]


SUITS: Final = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SUIT_SYMBOLS: Final = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_ORDER: Final = {suit: index for index, suit in enumerate(SUITS)}

# Ranks are integers: 2–10 as printed, then J=11, Q=12, K=13, A=14; a joker has rank 0.
JOKER_RANK: Final = 0
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
RANKS: Final = tuple(range(2, 15))
RANK_CODES: Final = {
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "T",
    JACK: "J",
    QUEEN: "Q",
    KING: "K",
    ACE: "A",
}
RANK_LABELS: Final = {
    **{r: str(r) for r in range(2, 11)},
    JACK: "J",
    QUEEN: "Q",
    KING: "K",
    ACE: "A",
}
_RANK_BY_CODE: Final = {code: rank for rank, code in RANK_CODES.items()}
JOKER_CODE: Final = "XJ"


_INTERNED: dict[tuple[int, Suit | None], Card] = {}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One playing card; :func:`card` and :func:`parse_card` are the usual ways to get one.

    ``eq=False``: equality and hashing are object identity (``object``'s, in C), which is
    value equality because every (rank, suit) has exactly one object.
    """

    rank: int
    suit: Suit | None
    #: Two characters: ``"Ts"`` for the ten of spades, ``"XJ"`` for a joker.
    code: str = field(init=False, repr=False)
    #: Human-readable, with the suit symbol: ``10♥``, ``K♠``, ``🃏``.
    label: str = field(init=False, repr=False)

    def __new__(cls, rank: int, suit: Suit | None) -> Card:
        existing = _INTERNED.get((rank, suit))
        if existing is not None:
            return existing
        created = object.__new__(cls)
        _INTERNED[(rank, suit)] = created
        return created

    def __post_init__(self) -> None:
        # Worked out once per card: both are read on every dump, render and action code.
        if self.suit is None:
            code, label = JOKER_CODE, "🃏"
        else:
            code = RANK_CODES[self.rank] + self.suit.value
            label = RANK_LABELS[self.rank] + _SUIT_SYMBOLS[self.suit]
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "label", label)

    def __reduce__(self) -> tuple[type[Card], tuple[int, Suit | None]]:
        # Pickling and copy.copy/deepcopy go through the constructor: still the same object.
        return (Card, (self.rank, self.suit))

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __str__(self) -> str:
        return self.label


_CARDS: Final = {(rank, suit): Card(rank, suit) for suit in SUITS for rank in RANKS}
JOKER: Final = Card(JOKER_RANK, None)
_BY_CODE: Final = {c.code: c for c in _CARDS.values()} | {JOKER_CODE: JOKER}


def card(rank: int, suit: Suit) -> Card:
    """The interned natural card of this rank and suit."""
    return _CARDS[(rank, suit)]


def parse_card(code: str) -> Card:
    """The card with this two-character code; ``ValueError`` for anything else."""
    try:
        return _BY_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"not a card code: {code!r}") from None


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in codes)


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def parse_rank(code: str) -> int:
    """The rank for a one-character rank code (``"T"`` for ten); ``ValueError`` otherwise."""
    try:
        return _RANK_BY_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"not a rank code: {code!r}") from None


def standard_deck(*, low_rank: int = 2, jokers: int = 0) -> list[Card]:
    """One deck in a fixed order: ranks ``low_rank``..A of each suit, then the jokers."""
    deck = [card(rank, suit) for suit in SUITS for rank in RANKS if rank >= low_rank]
    deck.extend([JOKER] * jokers)
    return deck


def shuffled(cards: Sequence[Card], rng: Random) -> list[Card]:
    """A shuffled copy, using only the generator passed in (games replay from their seed)."""
    result = list(cards)
    rng.shuffle(result)
    return result


def suit_order_key(c: Card) -> tuple[int, int]:
    """Sort key: rank (2 … A, jokers first), then suit ♠ ♥ ♦ ♣."""
    return (c.rank, c.suit.order if c.suit is not None else -1)
