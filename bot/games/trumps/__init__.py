"""Your Trumps (Svoi Kozyri), game key ``trumps``: a two-player beating duel.

Rules: ``rules/trumps.md``. Each player chooses his own trump suit (the dealer first, then the
other from the free suits), all cards are dealt (36 cards, or 52 with the lobby option
``deck52``), and the players beat or take until one runs out of cards.

Seats are 0 and 1. Suits are :class:`bot.games.cards.Suit` values (``suit.symbol`` is ♠ ♥ ♦ ♣).

View (:class:`TrumpsView`, from ``TRUMPS.view(state, seat)``; ``seat=None`` is the table):

- ``seat``: whose view this is (``None`` for the public table view).
- ``phase``: ``"choose_trump"`` | ``"lead"`` | ``"beat_or_take"`` | ``"second"`` | ``"over"``.
  ``lead``: ``to_move`` lays any card on an empty pile; ``beat_or_take``: ``to_move`` faces
  ``facing`` and beats it or takes ``take_count`` cards; ``second``: ``to_move`` has just beaten
  and lays any card on top.
- ``to_move``: the seat whose move it is (``None`` once over).
- ``dealer``: the dealing seat (he chooses his trump first; the other seat leads first).
- ``trumps``: per seat, his trump ``Suit`` or ``None`` until chosen (public).
- ``hand``: the viewer's own cards, sorted by suit ♠ ♥ ♦ ♣ then rank low to high; empty in the
  public view and before the deal (the deal happens once both trumps are chosen).
- ``hand_sizes``: cards held per seat (both 0 before the deal).
- ``pile_size``: cards in the pile; ``pile_top``: its top cards, at most five, **top last**.
- ``facing``: the card ``to_move`` faces (the pile's top) in ``beat_or_take``, else ``None``.
- ``take_count``: how many cards a take would collect now (0 outside ``beat_or_take``).
- ``moves`` / ``max_moves``: moves made so far / the backstop (400; trump choices don't count).
- ``deadline``: when the current turn window closes (``None`` once over).
- ``finished``; ``winner`` (seat, ``None`` on a draw or while playing); ``drawn`` (bool);
  ``end_reason``: ``None`` | ``"out"`` (a hand emptied) | ``"draw_rule"`` | ``"backstop"``.
- ``deck_size``: 36 or 52.

Actions and their codes (``TRUMPS.encode_action`` / ``decode_action``):

- :class:`ChooseTrump` — ``t`` + suit letter: ``ts`` ``th`` ``td`` ``tc``.
- :class:`PlayCard` — ``p`` + card code, e.g. ``pAs``, ``pTh``: a lead, a beat or a second
  card, whichever the phase asks for.
- :class:`Take` — ``k``: take from the pile (the button shows "+``take_count``").

Events (``code``: seat; args):

- ``trumps.timeout``: the seat whose window closed; no args (the default action follows).
- ``trumps.trump_chosen``: chooser; ``suit`` (suit letter ``s``/``h``/``d``/``c``).
- ``trumps.dealt``: the dealer; ``count`` (cards dealt to each player).
- ``trumps.led``: leader; ``card``.
- ``trumps.beat``: beater; ``card`` (the beating card), ``cards`` (a 1-tuple: the beaten card).
- ``trumps.second``: the beater; ``card`` (the second card laid on top).
- ``trumps.took``: taker; ``count``, ``cards`` (the cards taken, in pile order, top last).
- ``trumps.took_pile``: the same when a whole pile of more than five is taken (the ace of
  one's own trumps): the log tells the count, not every card.
- ``trumps.won``: winner; ``reason`` (``"out"`` or ``"backstop"``).
- ``trumps.drawn``: no seat; ``reason`` (``"draw_rule"`` or ``"backstop"``) and, for the draw
  rule, ``card``: the other player's last card, which would beat the last card laid.

Every event is public (the pile lies face up, and all cards are dealt, so nothing else is
secret once play starts except which cards are in whose hand; events never name those).

Error codes (``IllegalAction.code``): ``bad_action``, ``trumps.game_over``,
``trumps.not_your_turn``, ``trumps.wrong_phase`` (e.g. Take while leading),
``trumps.suit_taken`` (that suit is the other player's trump), ``trumps.not_in_hand``,
``trumps.cannot_beat``.
"""

from bot.games.trumps.rules import ERROR_CODES, EVENT_CODES, TRUMPS, TrumpsRules
from bot.games.trumps.state import (
    ChooseTrump,
    PlayCard,
    Take,
    TrumpsAction,
    TrumpsState,
    TrumpsView,
)

__all__ = [
    "ERROR_CODES",
    "EVENT_CODES",
    "TRUMPS",
    "ChooseTrump",
    "PlayCard",
    "Take",
    "TrumpsAction",
    "TrumpsRules",
    "TrumpsState",
    "TrumpsView",
]
