"""What one seat (or the public table) sees of a Progression match."""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.cards import Card, suit_order_key
from bot.games.progression.scoring import stack_score
from bot.games.progression.state import (
    BACKSTOP_TURNS,
    BETWEEN_DEALS_SECONDS,
    PHASE_BETWEEN,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_TAKE,
    ProgressionState,
    ScoreSheet,
    Stacks,
)


@dataclass(frozen=True, slots=True)
class ProgressionView:
    """The table as ``seat`` sees it; see the package docstring for every field."""

    seat: int | None
    phase: str
    to_move: int | None
    deal: int
    dealer: int
    target: int
    private_stacks: tuple[Stacks, ...]
    stack_scores: tuple[tuple[int, ...], ...]
    deal_scores: tuple[int, ...]
    public_stacks: Stacks
    draw_size: int
    hand_sizes: tuple[int, ...]
    hand: tuple[Card, ...] | None
    just_played: Card | None
    played_public: bool
    no_draw_turns: int
    must_draw: bool
    totals: tuple[int, ...]
    sheet: ScoreSheet | None
    ready: tuple[bool, ...]
    deadline: float | None
    finished: bool
    places: tuple[int, ...] | None
    winner: int | None


def _hand_key(c: Card) -> tuple[int, int]:
    # Suit first, like the stacks on the table, then rank.
    rank, suit = suit_order_key(c)
    return (suit, rank)


def deadline_of(state: ProgressionState) -> float | None:
    if state.phase in (PHASE_PLAY, PHASE_TAKE):
        return state.opened + state.turn_seconds
    if state.phase == PHASE_BETWEEN:
        return state.opened + BETWEEN_DEALS_SECONDS
    return None


def places_of(state: ProgressionState) -> tuple[int, ...] | None:
    if state.phase != PHASE_OVER:
        return None
    totals = state.totals
    return tuple(1 + sum(1 for other in totals if other > mine) for mine in totals)


def make_view(state: ProgressionState, seat: int | None) -> ProgressionView:
    in_turn = state.phase in (PHASE_PLAY, PHASE_TAKE)
    stack_scores = tuple(tuple(stack_score(s) for s in stacks) for stacks in state.stacks)
    places = places_of(state)
    winner = places.index(1) if places is not None else None
    hand = None
    if seat is not None:
        hand = tuple(sorted(state.hands[seat], key=_hand_key))
    return ProgressionView(
        seat=seat,
        phase=state.phase,
        to_move=state.to_move if in_turn else None,
        deal=state.deal,
        dealer=state.dealer,
        target=state.target,
        private_stacks=state.stacks,
        stack_scores=stack_scores,
        deal_scores=tuple(sum(scores) for scores in stack_scores),
        public_stacks=state.public,
        draw_size=len(state.draw),
        hand_sizes=tuple(len(h) for h in state.hands),
        hand=hand,
        just_played=state.just_played,
        played_public=state.played_public,
        no_draw_turns=state.no_draw_turns,
        must_draw=in_turn and state.no_draw_turns >= BACKSTOP_TURNS,
        totals=state.totals,
        sheet=state.sheet,
        ready=state.ready,
        deadline=deadline_of(state),
        finished=state.phase == PHASE_OVER,
        places=places,
        winner=winner,
    )
