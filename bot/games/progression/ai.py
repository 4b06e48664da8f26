"""The computer player for Progression: a one-step evaluator over plans and card counting.

A position is valued, for the player to move, as the expected end-of-deal score of his four
private stacks if he goes on playing well:

- each stack is extended by the best *plan*: a subset of his hand cards that may legally go on
  it (faces only while the stack holds no number; numbers above its top, played in rising
  order). Hand cards need turns, so all the plans together are limited to the plays he has
  left, counted from the draw pile (every turn normally takes one card from it);
- on top of that, unseen number cards of the suit above the stack's top may still arrive: each
  unseen card is one of his with a chance that falls as the draw pile runs down. The expected
  score is computed from the exact distribution of that extra value, so a face card is worth
  its multiplier early and a lone face card (−20 or worse) is avoided late in the deal.

Playing a card onto a public stack offers it to the next two players: the bot charges what the
card would add to their stacks (and credits the card it covers); taking a public card credits
denying it and charges the card it uncovers. The draw pile is valued as the average over the
cards the bot has not seen.
"""

from __future__ import annotations

from random import Random

from bot.games.cards import JACK, SUITS, Card, standard_deck
from bot.games.engine import IllegalAction
from bot.games.progression.scoring import THRESHOLD, TOP_NUMBER, can_stack
from bot.games.progression.state import (
    BACKSTOP_TURNS,
    DRAW,
    NEXT,
    PHASE_BETWEEN,
    PHASE_PLAY,
    PHASE_TAKE,
    SEATS,
    PlayCard,
    ProgressionAction,
    ProgressionState,
    TakeCard,
)

#: The share of unseen cards of a suit the player can expect to collect and play in rising
#: order, per future take, relative to the number of unseen cards.
_COLLECT_RATE = 0.8
_MAX_COLLECT = 0.9
#: What a point for the next player (and the one after him) costs, in own points.
_FEED_WEIGHTS = (0.6, 0.3)
#: A small preference for building over holding when the evaluation is otherwise equal.
_PROGRESS_BONUS = 0.25

_DECK = standard_deck()
# Suit index by card identity: cards are interned, and hashing an int beats hashing an enum.
_SUIT_OF = {id(c): _i for _i, _suit in enumerate(SUITS) for c in _DECK if c.suit is _suit}


def _index(c: Card) -> int:
    return _SUIT_OF[id(c)]


def _shape(stack: tuple[Card, ...]) -> tuple[int, int, int, int]:
    """(cards, faces, value, top number rank or 0) of a private stack."""
    faces = 0
    value = 0
    top = 0
    for c in stack:
        if c.rank >= JACK:
            faces += 1
        else:
            value += c.rank
            top = c.rank
    return len(stack), faces, value, top


class _Evaluator:
    """Caches for one decision: the unseen cards and the extra-value distributions."""

    def __init__(self, state: ProgressionState, seat: int) -> None:
        self.state = state
        self.seat = seat
        # Cards are interned, so identity sets are exact (and much faster than hashing cards).
        seen = {id(c) for c in state.hands[seat]}
        for stacks in state.stacks:
            for s in stacks:
                seen.update(id(c) for c in s)
        for s in state.public:
            seen.update(id(c) for c in s)
        self.unseen = [c for c in _DECK if id(c) not in seen]
        self.unseen_numbers: list[list[int]] = [[], [], [], []]
        for c in self.unseen:
            if c.rank <= TOP_NUMBER:
                self.unseen_numbers[_index(c)].append(c.rank)
        self._dists: dict[tuple[int, int, int], tuple[list[float], dict[int, float]]] = {}
        self._tables: dict[tuple[int, ...], list[float]] = {}

    def _dist(self, suit: int, top: int, takes: int) -> tuple[list[float], dict[int, float]]:
        key = (suit, top, takes)
        found = self._dists.get(key)
        if found is not None:
            return found
        dist = [1.0]
        if takes > 0 and self.unseen:
            p = min(_MAX_COLLECT, _COLLECT_RATE * takes / len(self.unseen))
            for value in self.unseen_numbers[suit]:
                if value <= top:
                    continue
                new = [0.0] * (len(dist) + value)
                for x, q in enumerate(dist):
                    if q:
                        new[x] += q * (1.0 - p)
                        new[x + value] += q * p
                dist = new
        result: tuple[list[float], dict[int, float]] = (dist, {})
        self._dists[key] = result
        return result

    def estimate(self, suit: int, top: int, takes: int, n: int, f: int, v: int) -> float:
        """Expected final score of a stack of ``n`` cards, ``f`` faces, value ``v``."""
        if n == 0:
            return 0.0
        dist, above = self._dist(suit, top, takes)
        excess = above.get(v)
        if excess is None:
            excess = 0.0
            for x in range(max(0, THRESHOLD + 1 - v), len(dist)):
                excess += dist[x] * (v + x - THRESHOLD)
            above[v] = excess
        if v > 0:
            return (f + 1) * excess
        return (f + 1) * excess - dist[0] * 10 * (n + 1)

    def table(self, stack: tuple[Card, ...], cards: list[Card], takes: int) -> list[float]:
        """``table[k]``: the best expected score of this stack using at most k of ``cards``."""
        n0, f0, v0, top = _shape(stack)
        suit = _index(stack[0]) if stack else (_index(cards[0]) if cards else 0)
        key = (suit, n0, f0, v0, top, takes, *sorted(c.rank for c in cards))
        found = self._tables.get(key)
        if found is not None:
            return found
        usable = [c for c in cards if top < c.rank <= TOP_NUMBER] if top else cards
        best = [self.estimate(suit, top, takes, n0, f0, v0)] + [-1e9] * len(usable)
        for mask in range(1, 1 << len(usable)):
            k = f = v = 0
            for i, c in enumerate(usable):
                if mask >> i & 1:
                    k += 1
                    if c.rank >= JACK:
                        f += 1
                    else:
                        v += c.rank
            value = self.estimate(suit, top, takes, n0 + k, f0 + f, v0 + v)
            if value > best[k]:
                best[k] = value
        for k in range(1, len(best)):
            if best[k] < best[k - 1]:
                best[k] = best[k - 1]
        self._tables[key] = best
        return best

    def tables(
        self, stacks: tuple[tuple[Card, ...], ...], hand: tuple[Card, ...], takes: int
    ) -> list[list[float]]:
        by_suit: list[list[Card]] = [[], [], [], []]
        for c in hand:
            by_suit[_index(c)].append(c)
        return [self.table(stacks[i], by_suit[i], takes) for i in range(4)]

    def help_to(self, seat: int, c: Card, takes: int) -> float:
        """How much ``c`` would add to ``seat``'s stack of its suit (never below 0)."""
        stack = self.state.stacks[seat][_index(c)]
        if not can_stack(stack, c):
            return 0.0
        n, f, v, top = _shape(stack)
        suit = _index(c)
        before = self.estimate(suit, top, takes, n, f, v)
        if c.rank >= JACK:
            after = self.estimate(suit, top, takes, n + 1, f + 1, v)
        else:
            after = self.estimate(suit, c.rank, takes, n + 1, f, v + c.rank)
        return max(0.0, after - before)

    def exposure(self, c: Card | None, draw_after: int) -> float:
        """The cost of leaving ``c`` on top of a public stack for the next two players."""
        if c is None:
            return 0.0
        total = 0.0
        for i, weight in enumerate(_FEED_WEIGHTS, start=1):
            takes = max(0, (draw_after - i) // 3)
            total += weight * self.help_to((self.seat + i) % SEATS, c, takes)
        return total


def _knapsack(tables: list[list[float]], budget: int) -> float:
    """The best total over the suits using at most ``budget`` hand cards in all."""
    cards = sum(len(t) - 1 for t in tables)
    if budget >= cards:
        return sum(t[-1] for t in tables)
    budget = max(0, budget)
    cur = [0.0] * (budget + 1)
    for t in tables:
        top = len(t) - 1
        cur = [max(cur[b - k] + t[k] for k in range(min(b, top) + 1)) for b in range(budget + 1)]
    return cur[budget]


def _choose_play(ev: _Evaluator, state: ProgressionState, seat: int, rng: Random) -> PlayCard:
    draw = len(state.draw)
    # My plays after this one if every turn draws: the turns left are draw, mine every third.
    plays = (draw + 2) // 3 - 1
    hand = state.hands[seat]
    stacks = state.stacks[seat]
    best: PlayCard | None = None
    best_value = -1e18
    for c in hand:
        rest = tuple(x for x in hand if x is not c)
        i = _index(c)
        options = [True]
        if can_stack(stacks[i], c):
            options.append(False)
        for public in options:
            if public:
                value = _knapsack(ev.tables(stacks, rest, plays), plays)
                old = state.public[i][-1] if state.public[i] else None
                value -= ev.exposure(c, draw - 1) - ev.exposure(old, draw - 1)
            else:
                new_stacks = (*stacks[:i], stacks[i] + (c,), *stacks[i + 1 :])
                value = _knapsack(ev.tables(new_stacks, rest, plays), plays) + _PROGRESS_BONUS
            value += rng.random() * 1e-6
            if value > best_value:
                best_value = value
                best = PlayCard(c, public)
    assert best is not None
    return best


def _choose_take(ev: _Evaluator, state: ProgressionState, seat: int, rng: Random) -> TakeCard:
    draw = len(state.draw)
    hand = state.hands[seat]
    stacks = state.stacks[seat]

    # Drawing: my plays after this turn, and how many of them can use a card taken later.
    plays = (draw - 1) // 3
    takes = max(0, plays - 1)
    base = ev.tables(stacks, hand, takes)
    total = 0.0
    count = 0
    for y in ev.unseen:
        i = _index(y)
        with_y = [c for c in hand if _index(c) == i]
        with_y.append(y)
        tables = list(base)
        tables[i] = ev.table(stacks[i], with_y, takes)
        total += _knapsack(tables, plays)
        count += 1
    best: TakeCard = DRAW
    best_value = (total / count if count else _knapsack(base, plays)) + rng.random() * 1e-6
    if state.no_draw_turns >= BACKSTOP_TURNS:
        return DRAW

    plays = draw // 3
    takes = max(0, plays - 1)
    for i, suit in enumerate(SUITS):
        pile = state.public[i]
        if not pile or (state.played_public and state.just_played is pile[-1]):
            continue
        x = pile[-1]
        below = pile[-2] if len(pile) > 1 else None
        value = _knapsack(ev.tables(stacks, (*hand, x), takes), plays)
        value += ev.exposure(x, draw) - ev.exposure(below, draw)
        value += rng.random() * 1e-6
        if value > best_value:
            best_value = value
            best = TakeCard(suit)
    return best


def choose_action(state: ProgressionState, seat: int, rng: Random) -> ProgressionAction:
    """The computer player's action for ``seat``; it must be able to act."""
    if state.phase == PHASE_BETWEEN:
        return NEXT
    if state.phase not in (PHASE_PLAY, PHASE_TAKE) or seat != state.to_move:
        raise IllegalAction("progression.not_your_turn")
    ev = _Evaluator(state, seat)
    if state.phase == PHASE_PLAY:
        return _choose_play(ev, state, seat, rng)
    return _choose_take(ev, state, seat, rng)
