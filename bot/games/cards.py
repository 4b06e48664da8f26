"""Playing cards shared by every game: suits, ranks, jokers, decks and seeded shuffles.

Cards are interned: there is exactly one ``Card`` object per (rank, suit), so equality is cheap
and a two-deck game simply holds the same object twice. Each card has a two-character ``code``
(``"Ts"`` is the ten of spades, ``"XJ"`` a joker) used in stored state, the action log and
callback data.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from random import Random
from typing import Final


class Suit(Enum):
    """The four suits, in the tie-break order ♠ ♥ ♦ ♣ used by every game."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

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


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. Build cards with :func:`card` or :func:`parse_card`, not directly."""

    rank: int
    suit: Suit | None

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def code(self) -> str:
        if self.suit is None:
            return JOKER_CODE
        return RANK_CODES[self.rank] + self.suit.value

    @property
    def label(self) -> str:
        """Human-readable label with the suit symbol, e.g. ``10♥``, ``K♠``, ``🃏``."""
        if self.suit is None:
            return "🃏"
        return RANK_LABELS[self.rank] + self.suit.symbol

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
