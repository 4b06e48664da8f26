"""The computer player of Your Trumps: quick heuristics, no search (tens of microseconds a move).

After the deal the game has no hidden cards in effect: every card is dealt and the pile lies
face up, so each player can work out the other's hand from his own hand and the pile. The
computer therefore reads the opponent's hand from the state; a player who keeps track knows
the same.

What it does:

- chooses its trump at random among the free suits (nothing is dealt yet);
- beats cheaply: the card it can best spare (a low plain card before a trump, a low trump
  before a high one), and takes instead when the only beaters are high trumps and the take
  brings in only a card or two while both hands are still large;
- lays (leads, or the second card after a beat) the card the opponent will find hardest: one
  he cannot beat at all (a card of his trump above all of his, a card of a suit he lacks while
  he holds no trumps), the more he must take the better; otherwise a card that costs him a dear
  card (a trump) to beat, and otherwise a low card. It never throws away its own trumps while
  it holds anything else, and never lays a card a nearly empty opponent (one or two cards) can
  beat when it has one he cannot;
- with one or two cards left, beating ends the game, so it beats in the way that leaves a last
  card the opponent's single card does not beat (a win rather than the draw rule), and takes
  the draw when every way leads to it.

Strength, measured over 2,000 seeded games: it beats a uniformly random player nearly always
and a greedy player (beat with the lowest card, lay the lowest non-trump) about 74 % of the
time, with about 3 % draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from bot.games.cards import QUEEN, SUITS, Card, Suit
from bot.games.trumps.state import TrumpsState, beats, take_count

# Keeping a card of one's own trump is worth far more than any plain card: it beats anything.
_TRUMP_VALUE = 30
# A card of the opponent's trump suit he cannot beat forces him to take five (or all).
_ATTACK_VALUE = 15
# Weights of the laying heuristic, tuned by matches against a greedy player (beat with the
# lowest card, lay the lowest non-trump): a card he cannot beat is good, but not at any price.
_UNBEATABLE = 10.0
_PER_CARD_TAKEN = 1.0
_WHOLE_PILE = 5.0
_EXPOSED_BEATABLE = 5.0
_KEEP_WEIGHT = 1.5


def choose_trump(state: TrumpsState, seat: int, rng: Random) -> Suit:
    """Any free suit: the cards are not dealt yet, so no suit is better than another."""
    free = [s for s in SUITS if s not in state.trumps]
    return free[rng.randrange(len(free))]


def keep_value(c: Card, trump: Suit | None, opp_trump: Suit | None, opp: Sequence[Card]) -> int:
    """How much a player with ``trump`` loses by giving up ``c`` (higher: keep it)."""
    if c.suit is trump:
        return _TRUMP_VALUE + c.rank
    if c.suit is opp_trump and not any(o.suit is opp_trump and o.rank > c.rank for o in opp):
        return _ATTACK_VALUE + c.rank
    return c.rank


def choose_beat(state: TrumpsState, seat: int) -> Card | None:
    """The card to beat the top card with, or ``None`` to take."""
    hand = state.hands[seat]
    opp = state.hands[1 - seat]
    trump = state.trumps[seat]
    opp_trump = state.trumps[1 - seat]
    pile = state.pile
    top = pile[-1]
    beaters = [c for c in hand if beats(c, top, trump)]
    if not beaters:
        return None
    if len(hand) <= 2:
        return _beat_to_finish(hand, beaters, opp, opp_trump)
    best = min(beaters, key=lambda c: keep_value(c, trump, opp_trump, opp))
    count = take_count(len(pile), top, trump)
    if (
        best.suit is trump
        and best.rank >= QUEEN
        and count <= 2
        and top.rank <= 10
        and len(hand) >= 4
        and len(opp) >= 4
    ):
        # A high trump is a sure beat later; spending it on a card or two is poor value.
        return None
    return best


def _beat_to_finish(
    hand: Sequence[Card], beaters: Sequence[Card], opp: Sequence[Card], opp_trump: Suit | None
) -> Card:
    """With one or two cards left, beating ends the game: win if possible, else draw."""
    for b in beaters:
        rest = [c for c in hand if c is not b]
        last = rest[0] if rest else b
        if not (len(opp) == 1 and beats(opp[0], last, opp_trump)):
            return b
    # Every way ends in the draw rule; a draw beats handing a one-card opponent the move.
    return beaters[0]


def choose_lay(state: TrumpsState, seat: int) -> Card:
    """The card to lead, or to lay as the second card after a beat."""
    hand = state.hands[seat]
    if len(hand) == 1:
        return hand[0]
    return best_lay(
        hand, state.hands[1 - seat], state.trumps[seat], state.trumps[1 - seat], state.pile
    )[0]


def best_lay(
    hand: Sequence[Card],
    opp: Sequence[Card],
    trump: Suit | None,
    opp_trump: Suit | None,
    pile: Sequence[Card],
) -> tuple[Card, float]:
    """The best card of ``hand`` to lay on ``pile``, and its score (higher is better)."""
    pile_after = len(pile) + 1
    best_card = hand[0]
    best_score = -1e9
    for s in hand:
        keep = keep_value(s, trump, opp_trump, opp)
        opp_beaters = [o for o in opp if beats(o, s, opp_trump)]
        if not opp_beaters:
            count = take_count(pile_after, s, opp_trump)
            score = _UNBEATABLE + _PER_CARD_TAKEN * count - _KEEP_WEIGHT * keep
            if count == pile_after:
                score += _WHOLE_PILE  # he takes it all and the lead comes back to us
            else:
                exposed = pile[-count]
                if any(beats(c, exposed, trump) for c in hand if c is not s):
                    score += _EXPOSED_BEATABLE
        elif len(opp) <= 2:
            # He beats and lays his last card (or beats with it): he goes out.
            score = -5000 - keep
        else:
            cost = min(keep_value(o, opp_trump, trump, hand) for o in opp_beaters)
            score = cost - _KEEP_WEIGHT * keep
        if score > best_score:
            best_score = score
            best_card = s
    return best_card, best_score
