"""Rank (Ранг), key ``rank``: 2–10 players shed cards by adjacent rank; the last holder loses.

Rules: /work/shared/rules/rank.md; readings where it is silent: :mod:`bot.games.rank.rules`.
One lobby option: ``round_limit`` (0 = about ten minutes for the number of players, the
default; or 25 / 50 / 100 / 200). Rematch: the deal passes to
the next seat.

View (:class:`RankView`, from ``RANK.view(state, seat)``; ``seat=None`` is the public table)
---------------------------------------------------------------------------------------
- ``seat``: whose view (None = public); ``players``: number of seats.
- ``hand``: own cards sorted A 2 … K, then suit ♠ ♥ ♦ ♣, jokers last; ``()`` in the public view.
  During phase ``drawn`` the drawn card is already in ``hand``.
- ``hand_sizes``: cards held per seat. ``stock_size``, ``discard_size``: pile sizes.
- ``top``: the card on top of the discard pile; ``named_rank``: the rank named by the joker on
  top (None when a natural card is on top). Ranks are ints 2..14 (J=11 Q=12 K=13 A=14).
- ``turn``: the seat to act (None when over). ``phase``: ``"play"`` (start of a turn),
  ``"drawn"`` (the turn player drew a playable card: play it or keep it), ``"follow"`` (after
  a joker: a follow-up card adjacent to ``named_rank``, or end the turn), ``"over"``.
- ``drawn``: the drawn card, only in the turn player's own view during phase ``drawn``.
- ``out``: seats out for good, in the order they went out (first = 1st place).
- ``pending``: the seat whose exit is pending (he played his last card; the next player's
  first action decides: a play brings him back with two cards, a draw or pass sends him out).
- ``round`` (from 1) and ``round_limit``: the game ends after round ``round_limit``.
- ``dealer``; ``deadline``: when the current decision window closes (None when over).
- ``finished``; ``loser``: the last player holding cards (None for backstop ends; places
  come from ``RANK.outcome``).

Buttons: ask ``RANK.legal_actions(state, seat)``. Action codes (``encode_action``):
``p<card>`` play a natural card, e.g. ``pTs`` (adjacent card, ace escape, the drawn card, or the
follow-up after a joker); ``j<rank>`` play a joker and name a rank, e.g. ``jQ``, ``jT``, ``jA``
(in phase ``drawn`` this plays the drawn joker); ``d`` draw; ``k`` keep the drawn card;
``e`` end the turn without a follow-up; ``x`` pass (nothing else possible).

Events (``code`` [args]; ``seat`` is who did it unless said otherwise)
---------------------------------------------------------------------
``rank.played`` [card] · ``rank.joker`` [rank] (named rank) · ``rank.drew`` (public, no card) ·
``rank.drew_card`` [card] (only_seat: the drawer) · ``rank.kept`` · ``rank.ended_turn`` ·
``rank.passed`` · ``rank.reshuffled`` [count] (seat None: the discard pile under its top card
became the stock) · ``rank.last_card`` (played his last card; exit pending) ·
``rank.returned`` [count] (the pending seat drew count cards and is back) ·
``rank.returned_cards`` [cards] (only_seat: the returning seat, the cards he drew) ·
``rank.out`` [place] (out for good) · ``rank.timeout`` (window closed; the default action's
events follow) · ``rank.lost`` (the loser; game over) · ``rank.stalled`` (seat None: a whole
round without a play or draw) · ``rank.round_limit`` [round] (seat None: the round limit is
reached) · ``rank.backstop`` (seat None: the game ended by a backstop; places by
``RANK.outcome``: those out keep their places, then fewer cards first, equal counts share).

Errors (``IllegalAction.code``): see :data:`ERROR_CODES` — ``bad_action``, ``rank.game_over``,
``rank.not_your_turn``, ``rank.illegal_card``, ``rank.must_play`` (you hold an adjacent card),
``rank.no_joker``, ``rank.play_drawn_card`` (after a draw only the drawn card or Keep),
``rank.cannot_draw``, ``rank.cannot_pass``, ``rank.wrong_phase``.
"""

from bot.games.rank.model import (
    ERROR_CODES,
    EVENT_CODES,
    Draw,
    EndTurn,
    Keep,
    Pass,
    Play,
    PlayJoker,
    RankAction,
    RankState,
    RankView,
)
from bot.games.rank.rules import RANK, RankRules

__all__ = [
    "ERROR_CODES",
    "EVENT_CODES",
    "RANK",
    "Draw",
    "EndTurn",
    "Keep",
    "Pass",
    "Play",
    "PlayJoker",
    "RankAction",
    "RankRules",
    "RankState",
    "RankView",
]
