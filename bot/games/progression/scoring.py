"""Card values, the private-stack rule and the score of a private stack in Progression.

A, K, Q and J are face cards worth 0 (they multiply a stack's score); 2–10 are worth their
number. On a private stack a card may never go on a card of higher value: face cards first, in
any order among themselves, then number cards in rising order.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.cards import JACK, Card

#: The highest number card; every rank above it is a face card.
TOP_NUMBER = 10
#: A stack must be worth more than this before it scores positively.
THRESHOLD = 12


def card_value(c: Card) -> int:
    """The value of a card: its number for 2–10, 0 for a face card."""
    return 0 if c.rank >= JACK else c.rank


def is_face(c: Card) -> bool:
    return c.rank >= JACK


def can_stack(stack: Sequence[Card], c: Card) -> bool:
    """Whether ``c`` may go on top of a private stack (already of its suit).

    Faces are worth 0, so anything may go on a face card (a face card is only ever under
    other faces or the numbers); on a number only a higher number may go. Equal numbers cannot
    meet in one suit of one deck.
    """
    if not stack:
        return True
    top = stack[-1].rank
    if top >= JACK:
        return True
    return top < c.rank <= TOP_NUMBER


def score_from(cards: int, faces: int, value: int) -> int:
    """The score of a private stack from its card count, face-card count and value sum."""
    if cards == 0:
        return 0
    if value == 0:
        return -10 * (cards + 1)
    if value <= THRESHOLD:
        return 0
    return (value - THRESHOLD) * (faces + 1)


def stack_score(stack: Sequence[Card]) -> int:
    """The score of one private stack, by the table in the rules file."""
    faces = 0
    value = 0
    for c in stack:
        if c.rank >= JACK:
            faces += 1
        else:
            value += c.rank
    return score_from(len(stack), faces, value)


def stacks_score(stacks: Sequence[Sequence[Card]]) -> int:
    """A player's deal score: the sum over his private stacks."""
    return sum(stack_score(stack) for stack in stacks)
