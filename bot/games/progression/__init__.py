"""Progression (Прогресія): three players build suit stacks over several deals to a target.

Rules: ``/work/shared/rules/progression.md``; readings where it is silent are in
:mod:`bot.games.progression.rules`. One engine state holds the whole match (all its deals).

Actions (``encode_action`` codes; cards by their 2-character code, e.g. ``7h``, ``Ts``, ``Qc``):

- ``m<card>`` (``m7h``): play the card onto my own private stack of its suit (``PlayCard``).
- ``u<card>`` (``u7h``): play the card onto the public stack of its suit.
- ``d``: take the top card of the draw pile (``TakeCard(None)``).
- ``t<suit>`` (``ts``, ``th``, ``td``, ``tc``): take the top card of that public stack.
- ``n``: between deals, "I am ready for the next deal" (``NextDeal``); legal once per pause for
  each seat. The next deal starts when every seat is ready, or when the pause ends; the seats
  not yet ready are the ``acting_seats`` then (a computer seat presses by itself).

A turn is two actions by the same seat: a play (phase ``play``), then a take (phase ``take``).

View (``ProgressionView``; every stack is a tuple of cards, bottom first; per-seat tuples are
indexed by seat, per-suit tuples by suit in the order ♠ ♥ ♦ ♣):

- ``seat``: whose view this is (None: the public table).
- ``phase``: ``"play"`` | ``"take"`` | ``"between_deals"`` | ``"over"``.
- ``to_move``: the seat to play or take (None between deals and when over; between deals every
  seat not yet ready may press Next).
- ``deal``: deal number (1, 2, …); ``dealer``: this deal's dealer; ``target``: match target.
- ``private_stacks[seat][suit]``: every player's four private stacks (public information).
- ``stack_scores[seat][suit]``: each private stack's score if the deal ended now;
  ``deal_scores[seat]``: their sum.
- ``public_stacks[suit]``: the four public stacks, full contents (the top is the last card).
- ``draw_size``: cards left in the draw pile; ``hand_sizes[seat]``.
- ``hand``: my hand sorted by suit then rank (None in the public view). Between deals and
  after the match it holds the cards left over from the finished deal (they do not count).
- ``just_played``: in the take phase, the card played this turn; ``played_public``: whether it
  went onto a public stack (then that stack's top cannot be taken this turn).
- ``no_draw_turns``: consecutive turns that took no card from the draw pile (backstop count);
  ``must_draw``: the player to move may only take from the draw pile.
- ``totals[seat]``: match totals (after the last finished deal).
- ``sheet``: the last finished deal's ``ScoreSheet`` (None during deal 1): ``deal``, ``dealer``
  and ``rows[seat]``, each a ``SheetRow`` with ``stacks`` (4), ``stack_scores`` (4),
  ``deal_score`` and ``total`` (running total after that deal). Shown between deals and after
  the match ends.
- ``ready[seat]``: between deals, whether that seat has pressed Next (all False otherwise).
- ``deadline``: when the open window closes (a turn phase, or the 20-second pause between
  deals); None when over.
- ``finished``: the match is over; ``places[seat]`` (1 = winner, ties share) and ``winner``
  once it is, else None.

Events (``seat`` is the actor unless said otherwise):

- ``progression.deal_started`` {deal, dealer_seat}; ``progression.dealt`` {cards} private to
  its seat.
- ``progression.played_own`` {card}; ``progression.played_public`` {card}.
- ``progression.drew`` {left: draw-pile size after}; ``progression.drew_card`` {card} private.
- ``progression.took`` {card}: taken from a public stack.
- ``progression.backstop``: seat = the next player, who may only take from the draw pile
  (three turns in a row took no card from it).
- ``progression.timeout``: the seat's window closed; the default action's events follow.
- ``progression.deal_ended`` {deal}; then per seat ``progression.deal_score`` {score, total}.
- ``progression.tie`` {total}: the target is reached but the highest total is shared: another
  deal is played.
- ``progression.match_won`` {total}: seat = the winner.
- ``progression.next``: seat pressed Next between deals (it is ready for the next deal);
  ``deal_started`` follows at once when that made every seat ready.
"""

from __future__ import annotations

from bot.games.progression.rules import (
    ERROR_CODES,
    EVENT_CODES,
    ProgressionRules,
    build_state,
    score_sheet,
    timeout_card,
)
from bot.games.progression.scoring import can_stack, card_value, stack_score
from bot.games.progression.state import (
    BETWEEN_DEALS_SECONDS,
    DRAW,
    NEXT,
    NextDeal,
    PlayCard,
    ProgressionAction,
    ProgressionState,
    ScoreSheet,
    SheetRow,
    TakeCard,
)
from bot.games.progression.view import ProgressionView

PROGRESSION = ProgressionRules()

__all__ = [
    "BETWEEN_DEALS_SECONDS",
    "DRAW",
    "ERROR_CODES",
    "EVENT_CODES",
    "NEXT",
    "PROGRESSION",
    "NextDeal",
    "PlayCard",
    "ProgressionAction",
    "ProgressionRules",
    "ProgressionState",
    "ProgressionView",
    "ScoreSheet",
    "SheetRow",
    "TakeCard",
    "build_state",
    "can_stack",
    "card_value",
    "score_sheet",
    "stack_score",
    "timeout_card",
]
