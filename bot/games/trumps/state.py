"""Data of Your Trumps: the state, the actions, the view and the small card rules they share.

Kept apart from the engine (``rules.py``) so that the computer player (``computer.py``) can use
the same helpers without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from bot.games.cards import ACE, SUITS, Card, Suit, card

#: Phases, in the order a game goes through them.
CHOOSE_TRUMP: Final = "choose_trump"
LEAD: Final = "lead"
BEAT_OR_TAKE: Final = "beat_or_take"
SECOND: Final = "second"
OVER: Final = "over"
PHASES: Final = (CHOOSE_TRUMP, LEAD, BEAT_OR_TAKE, SECOND, OVER)

#: Why a finished game ended (``TrumpsState.end_reason``).
END_OUT: Final = "out"
END_DRAW_RULE: Final = "draw_rule"
END_BACKSTOP: Final = "backstop"

#: The backstop: the game ends after this many moves (trump choices do not count).
MAX_MOVES: Final = 400

#: How many cards a take collects when the top card is not / is the taker's own trump.
TAKE_PLAIN: Final = 3
TAKE_OWN_TRUMP: Final = 5

ALL_CARDS: Final = tuple(card(rank, suit) for suit in SUITS for rank in range(2, 15))
# Hands are kept sorted by suit ♠ ♥ ♦ ♣, then rank: the order the DM panel shows them in.
HAND_ORDER: Final = {c: c.suit.order * 16 + c.rank for c in ALL_CARDS if c.suit is not None}
# "Lowest" in the rules: by rank, ties by suit order ♠ ♥ ♦ ♣.
LOW_ORDER: Final = {c: c.rank * 4 + c.suit.order for c in ALL_CARDS if c.suit is not None}


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A hand in display order: suits ♠ ♥ ♦ ♣, each from low to high."""
    return tuple(sorted(cards, key=HAND_ORDER.__getitem__))


def beats(card_: Card, top: Card, trump: Suit | None) -> bool:
    """Whether ``card_`` beats ``top`` for a player whose own trump suit is ``trump``.

    A higher card of the top card's suit beats it; any card of one's own trump beats a card
    that is not of one's own trump; only a higher own trump beats an own trump. Whose trump
    ``top`` belongs to does not matter.
    """
    if top.suit is trump:
        return card_.suit is trump and card_.rank > top.rank
    return card_.suit is trump or (card_.suit is top.suit and card_.rank > top.rank)


def take_count(pile_size: int, top: Card, trump: Suit | None) -> int:
    """How many cards a player with this trump collects when he takes from this pile."""
    if top.suit is not trump:
        return min(TAKE_PLAIN, pile_size)
    if top.rank == ACE:
        return pile_size
    return min(TAKE_OWN_TRUMP, pile_size)


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    """Choose ``suit`` as one's own trump suit. Code ``t`` + suit letter, e.g. ``ts``."""

    suit: Suit


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Lead, beat with, or lay as the second card ``card``. Code ``p`` + card, e.g. ``pAs``."""

    card: Card


@dataclass(frozen=True, slots=True)
class Take:
    """Take 3, 5 or the whole pile from the top (per the top card). Code ``k``."""


TrumpsAction = ChooseTrump | PlayCard | Take


@dataclass(frozen=True, slots=True)
class TrumpsState:
    """The whole game. ``pile`` runs bottom to top (the top card is last).

    ``stock`` holds the shuffled, not yet dealt deck while the trumps are chosen; it is empty
    from the deal on. ``to_move`` is ``None`` once the game is over. ``opened`` is when the
    current turn window opened.
    """

    dealer: int
    phase: str
    to_move: int | None
    trumps: tuple[Suit | None, Suit | None]
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    pile: tuple[Card, ...] = ()
    stock: tuple[Card, ...] = ()
    moves: int = 0
    deck52: bool = False
    opened: float = 0.0
    turn_seconds: float = 60.0
    winner: int | None = None
    drawn: bool = False
    end_reason: str | None = None

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[Iterable[Card]],
        trumps: Sequence[Suit | None],
        *,
        pile: Iterable[Card] = (),
        phase: str = LEAD,
        to_move: int | None = 0,
        dealer: int = 1,
        moves: int = 0,
        deck52: bool = False,
        opened: float = 0.0,
        turn_seconds: float = 60.0,
    ) -> TrumpsState:
        """A mid-game position from explicit hands (sorted here): for tests and puzzles."""
        return cls(
            dealer=dealer,
            phase=phase,
            to_move=to_move,
            trumps=(trumps[0], trumps[1]),
            hands=(sort_hand(hands[0]), sort_hand(hands[1])),
            pile=tuple(pile),
            moves=moves,
            deck52=deck52,
            opened=opened,
            turn_seconds=turn_seconds,
        )

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    @property
    def top(self) -> Card | None:
        return self.pile[-1] if self.pile else None


@dataclass(frozen=True, slots=True)
class TrumpsView:
    """What one seat (or, with ``seat=None``, the group) may see. See the package docstring."""

    seat: int | None
    phase: str
    to_move: int | None
    dealer: int
    trumps: tuple[Suit | None, Suit | None]
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, int]
    pile_size: int
    pile_top: tuple[Card, ...]
    facing: Card | None
    take_count: int
    moves: int
    max_moves: int
    deadline: float | None
    finished: bool
    winner: int | None
    drawn: bool
    end_reason: str | None
    deck_size: int
