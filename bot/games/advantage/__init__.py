"""Advantage (Преимущество), key ``advantage``: two players, one 52-card deck, most pairs wins.

Rules: ``/work/shared/rules/advantage.md``. Each cycle is Drop → Exchange → Pairs; the
non-dealer acts first in each phase. Lobby option ``strict_colours`` (False/True, default
False). Readings of the rules are listed in :mod:`bot.games.advantage.rules`.

Action codes (``encode_action``; piles are numbered 0, 1, 2 in actions and codes — show them
to people as 1, 2, 3):

- ``d<card><pile>`` e.g. ``dAs0``: drop the card on the pile (``Drop(card, pile)``);
- ``x<card><pile>`` e.g. ``x7h2``: exchange the card for the whole pile (``Exchange``);
- ``w``: draw from the stock because nothing fits (``Draw``);
- ``k``: keep the card just drawn instead of dropping it (``Keep``);
- ``s``: pass (``Pass``): in the exchange phases, or in the drop phase when nothing fits and
  the stock is empty.

Buttons by phase (``legal_actions`` lists exactly these): ``drop``: card → pile, or Draw (Pass
once the stock is empty) when nothing fits; ``drop_drawn``: the drawn card → pile, or Keep;
``exchange``: card → pile and Pass, or Draw and Pass when nothing fits (Pass alone with an
empty stock); ``exchange_drawn``: the drawn card → pile, or Pass.

The view (``view(state, seat)`` → :class:`AdvantageView`; ``seat=None`` is the group table):

- ``viewer``: the seat it was built for, or None;
- ``seats``: per seat a :class:`SeatView`: ``seat``, ``public`` (face-up cards in the hand,
  sorted), ``private`` (the hand's private cards, sorted: filled only in the owner's view),
  ``private_count`` (shown to everybody), ``pairs`` (tuple of 2-card tuples laid aside),
  properties ``hand_size`` and ``pair_count``;
- ``piles``: three :class:`PileView` — ``cards`` (whole pile bottom to top: public, as every
  card on a pile was face up when played), ``top``, ``size``;
- ``stock``: cards left in the stock;
- ``phase``: ``drop`` | ``drop_drawn`` | ``exchange`` | ``exchange_drawn`` | ``over``;
- ``to_move``: whose move (None once over); ``drawn``: the card just drawn (only in the drawing
  player's own view during ``drop_drawn`` / ``exchange_drawn``, else None);
- ``cycle``: cycle number from 1; ``last_cycle``: None until a cycle begins with the stock
  empty, then k of ``last_cycles`` (6) — show "last cycles: k of 6";
- ``deadline`` (None once over), ``dealer``, ``strict_colours``, ``finished``, ``winner``
  (None on a draw or mid-game), ``end_reason`` (None, ``quiet`` or ``backstop``).

Events (code: seat; args): ``advantage.dropped``: seat; card, pile.
``advantage.drew``: seat; count (public: how many cards the seat drew).
``advantage.drew_cards``: seat, only_seat=seat; cards (the drawer's private copy).
``advantage.stock_empty``: —. ``advantage.no_fit``: seat; phase (drew, nothing fits, turn over).
``advantage.kept``: seat. ``advantage.passed``: seat; phase.
``advantage.exchanged``: seat; card (given), pile, cards (the pile taken, bottom to top).
``advantage.exchange_started``: —; cycle. ``advantage.pair``: seat; cards, rank.
``advantage.cycle_started``: —; cycle, last_cycle (0 while the stock lasts), last_cycles.
``advantage.won``: winner; pairs, other_pairs, reason. ``advantage.tied``: —; pairs, reason.
``advantage.timeout``: seat (precedes the events of the default action).
"""

from bot.games.advantage.rules import ADVANTAGE, ERROR_CODES, EVENT_CODES, AdvantageRules
from bot.games.advantage.state import (
    AdvantageAction,
    AdvantageState,
    Draw,
    Drop,
    Exchange,
    Keep,
    Pass,
)
from bot.games.advantage.view import AdvantageView, PileView, SeatView

__all__ = [
    "ADVANTAGE",
    "ERROR_CODES",
    "EVENT_CODES",
    "AdvantageAction",
    "AdvantageRules",
    "AdvantageState",
    "AdvantageView",
    "Draw",
    "Drop",
    "Exchange",
    "Keep",
    "Pass",
    "PileView",
    "SeatView",
]
