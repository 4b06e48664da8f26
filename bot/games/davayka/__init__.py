"""Davay-ka! (Давай-ка!): two players, one 52-card deck, REAL TIME (rules/davayka.md).

Both players act at once; there are no turns. ``DAVAYKA.acting_seats(state)`` lists every
seat whose ``legal_actions`` is non-empty (in play: both, when both have a fitting card).
Presses are judged in arrival order against the current state. ``DAVAYKA.realtime`` is
True: the services then skip their stale-version check, because a press carries what the
player saw (a Move names the pile and its card) and is judged on its own merits — a press
from a panel that is a second old is not refused merely because the other player moved.

Options (``turn_seconds`` is NOT used by this game; its windows are below):
``countdown`` (3, 5, 10; default 5 s before a round starts unless both press Ready),
``idle_seconds`` (5, 10, 20; default 10: autopilot move for a player idle that long with a
move), ``forfeit_seconds`` (60, 120, 300; default 120: a player who pressed nothing that long
loses). The stall window is a fixed 3 s. Rematch: no dealer, options are kept as they are.

Action codes (``encode_action`` / ``decode_action``)
-----------------------------------------------------
* ``r`` — Ready (phase "ready", once per round).
* ``f`` — «Давай-ка!» (phase "stall", once per stall window).
* ``p<pile><centre><round>`` e.g. ``p2x7`` — Play: the top card of my row pile 2 (0–3, left
  to right), whatever it is when the press arrives (a player's piles change only by his own
  moves), onto centre pile ``centre`` (0 or 1) if it fits there, else onto the first it fits
  (left before right); ``x``: no preference. ``round`` is the round of the panel: a press
  from an earlier round is too late. ``legal_actions`` lists one Play per (pile, centre)
  pair that fits now, leftmost pile first, centre 0 before 1.
* ``m<pile><card><centre>`` e.g. ``m2Ts0`` — Move: the top card (here T♠) of row pile 2 onto
  centre pile 0, only if that card is still there and fits there. Panels no longer send it
  (it was judged against the panel, so a press on a panel a second behind was too late); it
  is still understood, and the autopilot's moves are made as Moves.

View (``DavaykaView``, identical for every seat except ``seat``; nothing private exists but
the order of face-down cards, which no view holds)
-----------------------------------------------------------------------------------------
* ``seat`` — whose panel (None: the group table).
* ``phase`` — "ready" (round laid out, waiting for Ready / countdown), "play", "stall"
  (nobody can move: show «Давай-ка!»), "over".
* ``round`` — round number, from 1 (the game ends after round 30 at the latest).
* ``seats[s]`` — ``SeatView``:
  ``piles`` (4 × ``RowPileView(top: Card | None, hidden: int)``, left to right; ``hidden`` =
  face-down cards under the top), ``row_cards``, ``stock`` (face-down stock size), ``cards``
  (row + stock: what he still has to get rid of), ``rounds_won``, ``pressed`` (Ready in
  "ready", «Давай-ка!» in "stall"), ``can_move`` (has a fitting card now), ``recycles``
  (consecutive stock recycles without a row card played), ``idle_at`` (when the autopilot
  plays for him, or None), ``forfeit_at`` (when he loses for pressing nothing, or None).
* ``centres`` — 0 (phase "ready" / "over"), 1 or 2 × ``CentreView(top, size, owner)``;
  index = the centre number in Move codes; ``owner`` is the seat that flips onto it.
* ``deadline`` / ``deadline_kind`` — the earliest pending deadline and its kind:
  "countdown", "stall", "idle", "forfeit" (None once over). ``phase_deadline`` — when the
  countdown or the stall window closes (None in play / over).
* ``last_move`` — ``LastMove(seat, row_pile, card, centre, auto)`` or None (cleared by every
  flip of stock cards and at round end).
* ``finished``, ``winner`` (None on a draw or while running), ``end_reason`` ("cards": got rid
  of all cards, "rounds": 30-round limit, "forfeit"; None while running).

Events (``code`` — seat — args)
-------------------------------
* ``davayka.laid_out`` — None — round: a new round is laid out (phase "ready").
* ``davayka.ready`` — seat — pressed Ready.
* ``davayka.go`` — None — round: the round starts («Давай-ка!»), followed by the flips.
* ``davayka.flipped`` — seat — card, centre: turned his stock's top card onto that pile.
* ``davayka.played`` — seat — card, pile, centre, auto (1 = autopilot move).
* ``davayka.turned_up`` — seat — card, pile: the uncovered row card turned face up.
* ``davayka.stall`` — None — nobody can move: the «Давай-ка!» window opens.
* ``davayka.flip_pressed`` — seat — pressed «Давай-ка!».
* ``davayka.recycled`` — seat — count, centre: centre pile turned over as his new stock.
* ``davayka.reshuffled`` — seat — count, centre: the same, shuffled (backstop).
* ``davayka.out`` — seat — «Аут!»: he emptied his row.
* ``davayka.round_won`` — seat — round, reason ("out" | "stuck"), taken (cards the loser
  put under his stock).
* ``davayka.round_drawn`` — None — round (stuck with equal rows).
* ``davayka.timeout`` — seat — kind ("countdown" | "stall": did not press in time; "idle":
  an autopilot move follows; "forfeit": ``davayka.forfeited`` follows).
* ``davayka.forfeited`` — seat — loses for pressing nothing.
* ``davayka.game_won`` — seat — reason ("cards" | "rounds" | "forfeit").
* ``davayka.game_drawn`` — None — reason ("rounds" | "forfeit").

Error codes: ``bad_action`` (undecodable), ``davayka.too_late`` (was legal on an earlier
panel: someone was faster, already played, window closed), ``davayka.illegal`` (never legal),
``davayka.already_pressed``, ``davayka.game_over``, ``davayka.not_yet`` (a pile pressed during the
countdown of its round).

Forfeit clock: only time in which a seat has something to press — a move, or Ready /
«Давай-ка!» not yet pressed — counts; while he has nothing (waiting for the other player,
or for the countdown after his Ready) it stands still (``paused``).
"""

from __future__ import annotations

from typing import Final

from bot.games.davayka.rules import (
    ERROR_CODES,
    EVENT_CODES,
    DavaykaRules,
    fits,
    lay_out,
    make_state,
)
from bot.games.davayka.state import (
    CentreView,
    DavaykaState,
    DavaykaView,
    Flip,
    LastMove,
    Move,
    Play,
    Ready,
    RowPileView,
    SeatView,
)

DAVAYKA: Final = DavaykaRules()

__all__ = [
    "DAVAYKA",
    "ERROR_CODES",
    "EVENT_CODES",
    "CentreView",
    "DavaykaRules",
    "DavaykaState",
    "DavaykaView",
    "Flip",
    "LastMove",
    "Move",
    "Play",
    "Ready",
    "RowPileView",
    "SeatView",
    "fits",
    "lay_out",
    "make_state",
]
