"""Rank's computer player: legal, simple and better than random.

The heuristic, in short:

- With an adjacent natural card it must play one; it keeps its aces for later when it can
  and sheds the card that leaves its own hand most *flexible*: the remaining natural cards
  should answer as many different top ranks as possible (the next top is decided by the other
  players, so what matters is how many ranks it can follow, not what it leaves on top).
  Among equally flexible plays it sheds the card with the fewest neighbours in its hand: a
  lone card is the hardest to get rid of later. Last tie-break: the card whose neighbours are
  most often already seen (discard pile, own hand), so the next player is likelier stuck.
- Only when stuck (no adjacent card) does it use an escape: a joker when that gets it out or
  when it has no ace, naming a rank for which it holds a follow-up card (with nothing to follow,
  a rank whose neighbours are mostly seen already); otherwise an ace.
  Escapes shed cards at once, drawing adds one, so it draws only without an escape.
- It always plays a card it drew when it can.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

from bot.games.cards import ACE, JOKER, Card
from bot.games.rank.model import (
    ADJACENT,
    DRAW,
    DRAWN,
    FOLLOW,
    HAND_ORDER,
    JOKER_PLAYS,
    PLAYS,
    RING,
    Play,
    PlayJoker,
    RankAction,
    RankState,
    rank_up,
)

#: For each natural rank, a bit mask of the ranks it can be played on.
_COVER: Final[dict[int, int]] = {
    rank: sum(1 << other for other in neighbours) for rank, neighbours in ADJACENT.items()
}


def _without(hand: Sequence[Card], c: Card) -> list[Card]:
    rest = list(hand)
    rest.remove(c)
    return rest


def _flexibility(cards: Sequence[Card]) -> int:
    """How many different top ranks these cards can answer with an adjacent card."""
    mask = 0
    for c in cards:
        mask |= _COVER.get(c.rank, 0)
    return mask.bit_count()


class _Sight:
    """What the computer knows of the cards it cannot see: how many of each rank are visible."""

    __slots__ = ("per_rank", "seen")

    def __init__(self, state: RankState, seat: int) -> None:
        self.per_rank = 4 if state.players <= 4 else 8
        self.seen = Counter(c.rank for c in state.discard)
        self.seen.update(c.rank for c in state.hands[seat])

    def unseen_neighbours(self, rank: int) -> int:
        """How many cards adjacent to ``rank`` may still be in the other players' hands."""
        return sum(self.per_rank - self.seen[other] for other in ADJACENT[rank])


def best_shed(hand: Sequence[Card], candidates: Sequence[Card], sight: _Sight) -> Card:
    """The candidate whose loss leaves the most flexible hand (ties: the loneliest card)."""
    best = candidates[0]
    best_key: tuple[int, int, int] | None = None
    for c in sorted(set(candidates), key=HAND_ORDER.__getitem__):
        rest = _without(hand, c)
        neighbours = ADJACENT[c.rank]
        lonely = -sum(1 for other in rest if other.rank in neighbours)
        key = (_flexibility(rest), lonely, -sight.unseen_neighbours(c.rank))
        if best_key is None or key > best_key:
            best, best_key = c, key
    return best


def joker_rank(rest: Sequence[Card], sight: _Sight) -> int:
    """The rank to name with a joker, given the hand without that joker.

    Names a neighbour of the best follow-up card (aces are kept when there is anything
    else). With nothing to follow, the named rank stays on top for the next player: name
    the one he is least likely to answer.
    """
    naturals = [c for c in rest if not c.is_joker]
    if not naturals:
        return min(RING, key=sight.unseen_neighbours)
    plain = [c for c in naturals if c.rank != ACE] or naturals
    return rank_up(best_shed(rest, plain, sight).rank)


def choose_action(state: RankState, seat: int, legal: Sequence[RankAction]) -> RankAction:
    """The computer's pick among ``legal`` (which must not be empty)."""
    if len(legal) == 1:
        return legal[0]
    hand = state.hands[seat]
    sight = _Sight(state, seat)
    if state.phase == DRAWN and state.drawn is not None:
        if state.drawn.is_joker:
            return JOKER_PLAYS[joker_rank(_without(hand, JOKER), sight)]
        return PLAYS[state.drawn]
    plays = [a.card for a in legal if isinstance(a, Play)]
    if state.phase == FOLLOW:
        return PLAYS[best_shed(hand, plays, sight)] if plays else legal[-1]
    target = ADJACENT[state.target_rank]
    adjacent = [c for c in plays if c.rank in target]
    if adjacent:
        plain = [c for c in adjacent if c.rank != ACE] or adjacent
        return PLAYS[best_shed(hand, plain, sight)]
    # Stuck: every Play left is an ace escape.
    has_joker = any(isinstance(a, PlayJoker) for a in legal)
    if has_joker:
        rest = _without(hand, JOKER)
        has_follow_up = any(not c.is_joker for c in rest)
        if has_follow_up and (not plays or len(hand) == 2):
            return JOKER_PLAYS[joker_rank(rest, sight)]
    if plays:
        return PLAYS[plays[0]]
    if has_joker:
        return JOKER_PLAYS[joker_rank(_without(hand, JOKER), sight)]
    if DRAW in legal:
        return DRAW
    return legal[0]
