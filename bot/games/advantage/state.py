"""Advantage: the game state, the actions and the constants shared by the engine modules.

A hand is kept as two tuples per seat: its *public* cards (dealt face up or taken with a centre
pile) and its *private* cards (drawn from the stock, seen only by their owner until played).
Every card on a centre pile was shown when it got there, so whole piles are public knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.games.cards import Card

PHASE_DROP: Final = "drop"
#: The player drew because nothing fitted and the drawn card fits: drop it or keep it.
PHASE_DROP_DRAWN: Final = "drop_drawn"
PHASE_EXCHANGE: Final = "exchange"
#: The player drew because no exchange was possible and now the drawn card allows one.
PHASE_EXCHANGE_DRAWN: Final = "exchange_drawn"
PHASE_OVER: Final = "over"
PHASES: Final = (PHASE_DROP, PHASE_DROP_DRAWN, PHASE_EXCHANGE, PHASE_EXCHANGE_DRAWN, PHASE_OVER)

SEATS: Final = 2
HAND_SIZE: Final = 3
PILE_COUNT: Final = 3
#: Backstop: the game ends after this many cycles that began with the stock empty.
LAST_CYCLES: Final = 6

#: Why a game ended: a quiet cycle (no drop, no pair) or the backstop.
END_QUIET: Final = "quiet"
END_BACKSTOP: Final = "backstop"

STRICT_COLOURS: Final = "strict_colours"


@dataclass(frozen=True, slots=True)
class Drop:
    """Drop ``card`` from the hand onto centre pile ``pile`` (0, 1 or 2)."""

    card: Card
    pile: int


@dataclass(frozen=True, slots=True)
class Exchange:
    """Give ``card`` for the whole centre pile ``pile`` (0, 1 or 2)."""

    card: Card
    pile: int


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the stock because nothing fits."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the card just drawn (which would fit a pile) and end the turn."""


@dataclass(frozen=True, slots=True)
class Pass:
    """End the turn without playing (exchange phase; drop phase when stuck with no stock)."""


AdvantageAction = Drop | Exchange | Draw | Keep | Pass

DRAW: Final = Draw()
KEEP: Final = Keep()
PASS: Final = Pass()


@dataclass(frozen=True, slots=True)
class AdvantageState:
    """A whole game of Advantage. Build one directly to set up a position in tests.

    ``stock`` is drawn from its end. ``piles`` list each centre pile bottom to top. ``pairs``
    is flat per seat: cards ``2i`` and ``2i + 1`` form one pair. ``drawn`` is the card just
    drawn in the ``*_drawn`` phases. ``last_cycle`` is 0 until a cycle begins with the stock
    empty, then counts those cycles 1..6. ``quiet`` is true while the current cycle has seen
    no drop and no pair. ``opened`` is when the current turn window opened.
    """

    dealer: int
    stock: tuple[Card, ...]
    public: tuple[tuple[Card, ...], ...]
    private: tuple[tuple[Card, ...], ...]
    piles: tuple[tuple[Card, ...], ...]
    pairs: tuple[tuple[Card, ...], ...] = ((), ())
    phase: str = PHASE_DROP
    to_move: int = -1
    drawn: Card | None = None
    cycle: int = 1
    last_cycle: int = 0
    quiet: bool = True
    strict_colours: bool = False
    turn_seconds: float = 60.0
    opened: float = 0.0
    end_reason: str | None = None

    def __post_init__(self) -> None:
        # The non-dealer opens every phase; -1 lets hand-built test states say "the default".
        if self.to_move == -1:
            object.__setattr__(self, "to_move", 1 - self.dealer)

    @property
    def first(self) -> int:
        """The seat that acts first in every phase (the non-dealer)."""
        return 1 - self.dealer

    @property
    def finished(self) -> bool:
        return self.phase == PHASE_OVER

    def hand(self, seat: int) -> tuple[Card, ...]:
        """All cards in ``seat``'s hand, public ones first."""
        return self.public[seat] + self.private[seat]

    def pair_count(self, seat: int) -> int:
        return len(self.pairs[seat]) // 2

    def winner(self) -> int | None:
        """The seat with more pairs once the game is over; ``None`` on a draw or mid-game."""
        if self.phase != PHASE_OVER:
            return None
        a, b = self.pair_count(0), self.pair_count(1)
        if a == b:
            return None
        return 0 if a > b else 1
