"""Advantage: the computer player.

It uses only what its seat may know: its own hand, the other hand's public cards and the
centre piles (all public: every card on a pile was face up when it got there).

- Drop: never breaks a pair it holds if it can help it; prefers dropping ranks the opponent
  does not show; prefers a pile whose new top it could exchange for profitably afterwards and
  the opponent could not.
- Drop after a draw-when-stuck: keeps the card (a bigger hand pairs more often).
- Exchange: takes the pile that makes the most new pairs, counting the pile's size as a small
  bonus (more cards, more pairs later), giving the card that costs least; passes when
  nothing gains. With nothing to exchange it draws while the stock lasts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from random import Random

from bot.games.advantage.matching import can_exchange
from bot.games.advantage.state import (
    PHASE_DROP,
    PHASE_DROP_DRAWN,
    AdvantageAction,
    AdvantageState,
    Draw,
    Drop,
    Exchange,
    Keep,
    Pass,
)
from bot.games.cards import Card


def _pairs(ranks: Counter[int]) -> int:
    return sum(n // 2 for n in ranks.values())


def _gain(ranks: Counter[int], give: Card | None, pile: Iterable[Card]) -> int:
    """New pairs made by giving ``give`` (if any) and taking ``pile`` into a hand."""
    after = ranks.copy()
    if give is not None:
        after[give.rank] -= 1
    after.update(c.rank for c in pile)
    return _pairs(after) - _pairs(ranks)


def _exchange_score(
    ranks: Counter[int], opponent: Counter[int], give: Card, pile: Sequence[Card]
) -> float:
    score = 10.0 * _gain(ranks, give, pile) + 0.5 * (len(pile) - 1)
    if opponent[give.rank]:
        # The card starts a one-card pile the opponent may take to complete a pair.
        score -= 4.0
    return score


def _best_exchange(
    hand: Sequence[Card], ranks: Counter[int], top: Card, pile: Sequence[Card], strict: bool
) -> float:
    """What the best exchange for this pile would be worth to a hand (0: none worth it)."""
    best = 0.0
    for give in hand:
        if can_exchange(give, top, strict):
            best = max(best, 10.0 * _gain(ranks, give, pile) + 0.5 * (len(pile) - 1))
    return best


def _drop_score(
    state: AdvantageState,
    hand: Sequence[Card],
    ranks: Counter[int],
    opponent_cards: Sequence[Card],
    opponent: Counter[int],
    action: Drop,
) -> float:
    c = action.card
    score = 0.0
    if ranks[c.rank] >= 2:
        score -= 100.0  # it would be laid aside as a pair at the end of this cycle
    if opponent[c.rank]:
        score -= 5.0
    pile = (*state.piles[action.pile], c)
    rest = [h for h in hand if h is not c]
    rest_ranks = ranks.copy()
    rest_ranks[c.rank] -= 1
    strict = state.strict_colours
    score += 0.5 * _best_exchange(rest, rest_ranks, c, pile, strict)
    score -= 0.5 * _best_exchange(opponent_cards, opponent, c, pile, strict)
    return score


def choose_action(
    state: AdvantageState, seat: int, rng: Random, legal: Sequence[AdvantageAction]
) -> AdvantageAction:
    """A sensible legal action for ``seat``, which must be able to act."""
    if not legal:
        raise ValueError("the computer player was asked to act out of turn")
    if len(legal) == 1:
        return legal[0]
    hand = state.hand(seat)
    ranks = Counter(c.rank for c in hand)
    opponent_cards = state.public[1 - seat]
    opponent = Counter(c.rank for c in opponent_cards)
    if state.phase == PHASE_DROP_DRAWN:
        return next(a for a in legal if isinstance(a, Keep))
    if state.phase == PHASE_DROP:
        drops = [a for a in legal if isinstance(a, Drop)]
        scored = [
            (_drop_score(state, hand, ranks, opponent_cards, opponent, a), rng.random(), a)
            for a in drops
        ]
        return max(scored, key=lambda t: (t[0], t[1]))[2]
    # Exchange phases.
    best: tuple[float, float, AdvantageAction] | None = None
    for a in legal:
        if isinstance(a, Exchange):
            score = _exchange_score(ranks, opponent, a.card, state.piles[a.pile])
            candidate = (score, rng.random(), a)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    if best is not None and best[0] > 0:
        return best[2]
    for a in legal:
        if isinstance(a, Draw):
            return a
    return next(a for a in legal if isinstance(a, Pass))
