"""The state and the actions of a Progression match (several deals in one state)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.games.cards import Card, Suit

SEATS: Final = 3
HAND_SIZE: Final = 5
DEFAULT_TARGET: Final = 200
TARGETS: Final = (100, 200, 300)
#: The pause between deals, while the score sheet is shown; independent of turn_seconds.
BETWEEN_DEALS_SECONDS: Final = 20.0
#: After this many consecutive turns without a draw-pile take, the next player must draw.
BACKSTOP_TURNS: Final = 3
#: Between deals, who has pressed Next, per seat: every pause starts with nobody ready.
NOBODY_READY: Final = (False,) * SEATS

PHASE_PLAY: Final = "play"
PHASE_TAKE: Final = "take"
PHASE_BETWEEN: Final = "between_deals"
PHASE_OVER: Final = "over"
PHASES: Final = (PHASE_PLAY, PHASE_TAKE, PHASE_BETWEEN, PHASE_OVER)

#: One stack per suit, indexed by ``Suit.order`` (♠ ♥ ♦ ♣).
Stacks = tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` from the hand onto the own private stack of its suit, or (``public``)
    onto the public stack of its suit."""

    card: Card
    public: bool


@dataclass(frozen=True, slots=True)
class TakeCard:
    """Take the top card of the public stack of ``suit``, or (``suit`` None) of the draw pile."""

    suit: Suit | None


@dataclass(frozen=True, slots=True)
class NextDeal:
    """Between deals: this seat is ready for the next deal, which starts as soon as every seat
    is ready instead of when the pause ends."""


ProgressionAction = PlayCard | TakeCard | NextDeal

DRAW: Final = TakeCard(None)
NEXT: Final = NextDeal()


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One player's line in a deal's score sheet."""

    stacks: Stacks
    stack_scores: tuple[int, ...]
    deal_score: int
    total: int


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """The score sheet of a finished deal: ``rows[seat]``; all of it is public."""

    deal: int
    dealer: int
    rows: tuple[SheetRow, ...]


@dataclass(frozen=True, slots=True)
class ProgressionState:
    """A whole match. Build test positions with :func:`bot.games.progression.build_state`.

    ``draw`` is the face-down pile, its top card last. ``just_played`` is the card played this
    turn (set only in the take phase) and ``played_public`` says where it went. ``opened`` is
    when the current window opened: a turn phase (``turn_seconds`` long) or the pause between
    deals (``BETWEEN_DEALS_SECONDS``). ``no_draw_turns`` counts consecutive turns whose take
    was not from the draw pile (the backstop). ``sheet`` is the last finished deal's score sheet.
    ``ready[seat]``: between deals, whether that seat has pressed Next (all False otherwise).
    """

    target: int
    turn_seconds: float
    deal: int
    dealer: int
    phase: str
    to_move: int
    hands: tuple[tuple[Card, ...], ...]
    stacks: tuple[Stacks, ...]
    public: Stacks
    draw: tuple[Card, ...]
    just_played: Card | None
    played_public: bool
    no_draw_turns: int
    totals: tuple[int, ...]
    opened: float
    sheet: ScoreSheet | None
    ready: tuple[bool, ...] = NOBODY_READY
