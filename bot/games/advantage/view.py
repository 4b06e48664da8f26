"""Advantage: what one seat (or the public table) may see of a game.

The public view and the other player's view show a hand's public cards and only the count of
its private cards; the owner's view also lists the private cards and the card just drawn.
Centre piles are shown whole: every card on them was face up when it got there.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.advantage.matching import order
from bot.games.advantage.state import LAST_CYCLES, PHASE_OVER, AdvantageState
from bot.games.cards import Card


@dataclass(frozen=True, slots=True)
class SeatView:
    """One player's side of the table.

    ``public``: the hand's public cards (sorted by rank, then suit ♠ ♥ ♦ ♣).
    ``private``: the hand's private cards (sorted) — only in that player's own view, else ().
    ``private_count``: how many private cards the hand holds (shown to everybody).
    ``pairs``: the pairs laid aside, in the order they were laid (public).
    """

    seat: int
    public: tuple[Card, ...]
    private: tuple[Card, ...]
    private_count: int
    pairs: tuple[tuple[Card, Card], ...]

    @property
    def hand_size(self) -> int:
        return len(self.public) + self.private_count

    @property
    def pair_count(self) -> int:
        return len(self.pairs)


@dataclass(frozen=True, slots=True)
class PileView:
    """One centre pile: all its cards bottom to top (public knowledge), its top and size."""

    cards: tuple[Card, ...]
    top: Card
    size: int


@dataclass(frozen=True, slots=True)
class AdvantageView:
    """The table as ``viewer`` sees it (``None``: the public table in the group)."""

    viewer: int | None
    seats: tuple[SeatView, ...]
    piles: tuple[PileView, ...]
    stock: int
    phase: str
    to_move: int | None
    drawn: Card | None
    cycle: int
    last_cycle: int | None
    last_cycles: int
    deadline: float | None
    dealer: int
    strict_colours: bool
    finished: bool
    winner: int | None
    end_reason: str | None


def _pairs(flat: tuple[Card, ...]) -> tuple[tuple[Card, Card], ...]:
    return tuple((flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2))


def build_view(state: AdvantageState, viewer: int | None, deadline: float | None) -> AdvantageView:
    seats = tuple(
        SeatView(
            seat=seat,
            public=tuple(sorted(state.public[seat], key=order)),
            private=(tuple(sorted(state.private[seat], key=order)) if seat == viewer else ()),
            private_count=len(state.private[seat]),
            pairs=_pairs(state.pairs[seat]),
        )
        for seat in range(len(state.public))
    )
    piles = tuple(PileView(cards=p, top=p[-1], size=len(p)) for p in state.piles)
    over = state.phase == PHASE_OVER
    return AdvantageView(
        viewer=viewer,
        seats=seats,
        piles=piles,
        stock=len(state.stock),
        phase=state.phase,
        to_move=None if over else state.to_move,
        drawn=state.drawn if viewer is not None and viewer == state.to_move else None,
        cycle=state.cycle,
        last_cycle=state.last_cycle or None,
        last_cycles=LAST_CYCLES,
        deadline=None if over else deadline,
        dealer=state.dealer,
        strict_colours=state.strict_colours,
        finished=over,
        winner=state.winner(),
        end_reason=state.end_reason,
    )
