"""The Your Trumps engine: the ``Rules`` implementation for the game key ``trumps``.

The authoritative rules are ``rules/trumps.md``. Readings of points it leaves open:

- The deck is shuffled when the game is created and dealt (alternately, the non-dealer first,
  half to each player) only once both trumps are chosen, so nobody sees a card before choosing.
- A take collects the top card and the cards right under it; they join the taker's hand and
  are named in the public ``trumps.took`` event (they lay face up on the pile: no secret).
- The draw-rule ``trumps.drawn`` event names the other player's last card: the game is over,
  and with every card dealt and the pile face up, both players could work it out anyway.
- The draw rule is checked whenever a hand empties: after a lead, a beat with the last card,
  or a second card. "Which beats it" is judged by the other player's own trump, as if he were
  about to face that card. When the rule does not apply, the player who emptied his hand wins.
- A game that ends by emptying a hand on the 400th move ends that way, not by the backstop.
  The backstop also ends a game between a beat and its second card.
- A turn window opens after every action; the timeout default is applied to the seat to move.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any, Final

from bot.games.cards import SUITS, Card, Suit, parse_card, shuffled, standard_deck
from bot.games.engine import (
    DEALER,
    TURN_SECONDS,
    Event,
    IllegalAction,
    Options,
    OptionSpec,
    Outcome,
    Step,
    places_from_ranking,
)
from bot.games.trumps import computer
from bot.games.trumps.state import (
    ALL_CARDS,
    BEAT_OR_TAKE,
    CHOOSE_TRUMP,
    END_BACKSTOP,
    END_DRAW_RULE,
    END_OUT,
    HAND_ORDER,
    LEAD,
    LOW_ORDER,
    MAX_MOVES,
    OVER,
    PHASES,
    SECOND,
    TAKE_OWN_TRUMP,
    ChooseTrump,
    PlayCard,
    Take,
    TrumpsAction,
    TrumpsState,
    TrumpsView,
    beats,
    take_count,
)

DEFAULT_TURN_SECONDS: Final = 60.0
#: How many pile cards the table shows (a take collects at most five unless it is the whole).
PILE_SHOWN: Final = 5
#: Lobby option: play with the full 52-card deck instead of 36 cards (6 … A).
DECK52: Final = "deck52"

EV_TIMEOUT: Final = "trumps.timeout"
EV_TRUMP_CHOSEN: Final = "trumps.trump_chosen"
EV_DEALT: Final = "trumps.dealt"
EV_LED: Final = "trumps.led"
EV_BEAT: Final = "trumps.beat"
EV_SECOND: Final = "trumps.second"
EV_TOOK: Final = "trumps.took"
EV_TOOK_PILE: Final = "trumps.took_pile"
EV_WON: Final = "trumps.won"
EV_DRAWN: Final = "trumps.drawn"
EVENT_CODES: Final = (
    EV_TIMEOUT,
    EV_TRUMP_CHOSEN,
    EV_DEALT,
    EV_LED,
    EV_BEAT,
    EV_SECOND,
    EV_TOOK,
    EV_TOOK_PILE,
    EV_WON,
    EV_DRAWN,
)

ERR_BAD_ACTION: Final = "bad_action"
ERR_GAME_OVER: Final = "trumps.game_over"
ERR_NOT_YOUR_TURN: Final = "trumps.not_your_turn"
ERR_WRONG_PHASE: Final = "trumps.wrong_phase"
ERR_SUIT_TAKEN: Final = "trumps.suit_taken"
ERR_NOT_IN_HAND: Final = "trumps.not_in_hand"
ERR_CANNOT_BEAT: Final = "trumps.cannot_beat"
ERROR_CODES: Final = (
    ERR_BAD_ACTION,
    ERR_GAME_OVER,
    ERR_NOT_YOUR_TURN,
    ERR_WRONG_PHASE,
    ERR_SUIT_TAKEN,
    ERR_NOT_IN_HAND,
    ERR_CANNOT_BEAT,
)

# Actions are interned so that legal_actions allocates nothing per card.
_PLAY: Final = {c: PlayCard(c) for c in ALL_CARDS}
_CHOOSE: Final = {suit: ChooseTrump(suit) for suit in SUITS}
_TAKE: Final = Take()
_DECODE: Final[dict[str, TrumpsAction]] = {
    **{"p" + c.code: a for c, a in _PLAY.items()},
    **{"t" + s.value: a for s, a in _CHOOSE.items()},
    "k": _TAKE,
}
_SUIT_BY_LETTER: Final = {s.value: s for s in SUITS}


def default_action(state: TrumpsState) -> TrumpsAction:
    """The timeout default for the seat to move (rules file, "Timeout default")."""
    seat = state.to_move
    if seat is None:
        raise IllegalAction(ERR_GAME_OVER)
    if state.phase == CHOOSE_TRUMP:
        return _CHOOSE[next(s for s in SUITS if s not in state.trumps)]
    if state.phase == BEAT_OR_TAKE:
        return _TAKE
    trump = state.trumps[seat]
    hand = state.hands[seat]
    plain = [c for c in hand if c.suit is not trump]
    return _PLAY[min(plain or hand, key=LOW_ORDER.__getitem__)]


class TrumpsRules:
    """Your Trumps (Svoi Kozyri): a two-player beating duel, each with his own trump suit."""

    key: str = "trumps"
    min_players: int = 2
    max_players: int = 2
    options: tuple[OptionSpec, ...] = (OptionSpec(DECK52, (False, True), False),)

    # -- setting up -------------------------------------------------------------------------

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> TrumpsState:
        if seats != 2:
            raise ValueError(f"Your Trumps is for 2 players, not {seats}")
        dealer = options.get(DEALER)
        if dealer is None:
            dealer = rng.randrange(2)
        elif dealer not in (0, 1):
            raise ValueError(f"no seat {dealer!r} to deal")
        deck52 = bool(options.get(DECK52, False))
        stock = shuffled(standard_deck(low_rank=2 if deck52 else 6), rng)
        return TrumpsState(
            dealer=int(dealer),
            phase=CHOOSE_TRUMP,
            to_move=int(dealer),
            trumps=(None, None),
            hands=((), ()),
            stock=tuple(stock),
            deck52=deck52,
            opened=float(now),
            turn_seconds=float(options.get(TURN_SECONDS) or DEFAULT_TURN_SECONDS),
        )

    def rematch_options(self, state: TrumpsState, options: Options) -> dict[str, Any]:
        # The loser deals; after a draw the same player deals again.
        dealer = state.dealer if state.winner is None else 1 - state.winner
        return {**options, DEALER: dealer}

    # -- whose move and what he may do ------------------------------------------------------

    def acting_seats(self, state: TrumpsState) -> tuple[int, ...]:
        return () if state.to_move is None else (state.to_move,)

    def legal_actions(self, state: TrumpsState, seat: int) -> Sequence[TrumpsAction]:
        if seat != state.to_move:
            return []
        phase = state.phase
        if phase == BEAT_OR_TAKE:
            top = state.pile[-1]
            trump = state.trumps[seat]
            actions: list[TrumpsAction] = [
                _PLAY[c] for c in state.hands[seat] if beats(c, top, trump)
            ]
            actions.append(_TAKE)
            return actions
        if phase in (LEAD, SECOND):
            return [_PLAY[c] for c in state.hands[seat]]
        if phase == CHOOSE_TRUMP:
            return [_CHOOSE[s] for s in SUITS if s not in state.trumps]
        return []

    # -- applying actions -------------------------------------------------------------------

    def apply(
        self, state: TrumpsState, seat: int, action: TrumpsAction, rng: Random, now: float
    ) -> Step[TrumpsState]:
        if state.phase == OVER:
            raise IllegalAction(ERR_GAME_OVER)
        if seat != state.to_move:
            raise IllegalAction(ERR_NOT_YOUR_TURN)
        events: list[Event] = []
        if isinstance(action, PlayCard):
            new = self._play(state, seat, action.card, float(now), events)
        elif isinstance(action, Take):
            new = self._take(state, seat, float(now), events)
        elif isinstance(action, ChooseTrump):
            new = self._choose_trump(state, seat, action.suit, float(now), events)
        else:
            raise IllegalAction(ERR_BAD_ACTION)
        if new.phase != OVER and new.moves >= MAX_MOVES:
            new = self._backstop(new, events)
        return Step(new, tuple(events))

    def _choose_trump(
        self, state: TrumpsState, seat: int, suit: Suit, now: float, events: list[Event]
    ) -> TrumpsState:
        if state.phase != CHOOSE_TRUMP:
            raise IllegalAction(ERR_WRONG_PHASE)
        if not isinstance(suit, Suit):
            raise IllegalAction(ERR_BAD_ACTION)
        if suit in state.trumps:
            raise IllegalAction(ERR_SUIT_TAKEN)
        trumps = (suit, state.trumps[1]) if seat == 0 else (state.trumps[0], suit)
        events.append(Event(EV_TRUMP_CHOSEN, seat, {"suit": suit.value}))
        other = 1 - seat
        if trumps[other] is None:
            return _with(state, trumps=trumps, to_move=other, opened=now)
        # Both trumps are known: deal everything, the non-dealer first, and he leads.
        stock = state.stock
        first = 1 - state.dealer
        first_hand, dealer_hand = _sorted(stock[0::2]), _sorted(stock[1::2])
        hands = (first_hand, dealer_hand) if first == 0 else (dealer_hand, first_hand)
        events.append(Event(EV_DEALT, state.dealer, {"count": len(stock) // 2}))
        return _with(
            state, trumps=trumps, hands=hands, stock=(), phase=LEAD, to_move=first, opened=now
        )

    def _play(
        self, state: TrumpsState, seat: int, card_: Card, now: float, events: list[Event]
    ) -> TrumpsState:
        phase = state.phase
        if phase == CHOOSE_TRUMP:
            raise IllegalAction(ERR_WRONG_PHASE)
        hand = state.hands[seat]
        try:
            index = hand.index(card_)
        except ValueError:
            raise IllegalAction(ERR_NOT_IN_HAND) from None
        # The hand's own (interned) object: an equal Card built elsewhere must not slip in.
        card_ = hand[index]
        if phase == BEAT_OR_TAKE:
            top = state.pile[-1]
            if not beats(card_, top, state.trumps[seat]):
                raise IllegalAction(ERR_CANNOT_BEAT)
            events.append(Event(EV_BEAT, seat, {"card": card_, "cards": (top,)}))
            next_phase, next_seat = SECOND, seat
        elif phase == LEAD:
            events.append(Event(EV_LED, seat, {"card": card_}))
            next_phase, next_seat = BEAT_OR_TAKE, 1 - seat
        else:
            events.append(Event(EV_SECOND, seat, {"card": card_}))
            next_phase, next_seat = BEAT_OR_TAKE, 1 - seat
        new_hand = hand[:index] + hand[index + 1 :]
        hands = (new_hand, state.hands[1]) if seat == 0 else (state.hands[0], new_hand)
        new = _with(
            state,
            hands=hands,
            pile=(*state.pile, card_),
            moves=state.moves + 1,
            phase=next_phase,
            to_move=next_seat,
            opened=now,
        )
        if new_hand:
            return new
        # His hand is empty: he wins, unless the draw rule applies.
        other = 1 - seat
        other_hand = hands[other]
        if len(other_hand) == 1 and beats(other_hand[0], card_, state.trumps[other]):
            events.append(Event(EV_DRAWN, None, {"reason": END_DRAW_RULE, "card": other_hand[0]}))
            return _over(new, None, END_DRAW_RULE)
        events.append(Event(EV_WON, seat, {"reason": END_OUT}))
        return _over(new, seat, END_OUT)

    def _take(self, state: TrumpsState, seat: int, now: float, events: list[Event]) -> TrumpsState:
        if state.phase != BEAT_OR_TAKE:
            raise IllegalAction(ERR_WRONG_PHASE)
        pile = state.pile
        count = take_count(len(pile), pile[-1], state.trumps[seat])
        taken = pile[-count:]
        rest = pile[:-count]
        new_hand = _sorted(state.hands[seat] + taken)
        hands = (new_hand, state.hands[1]) if seat == 0 else (state.hands[0], new_hand)
        # A whole pile of more than five (the ace rule) is told by its size, not card by card.
        code = EV_TOOK_PILE if count > TAKE_OWN_TRUMP else EV_TOOK
        events.append(Event(code, seat, {"count": count, "cards": taken}))
        # The other player faces the newly exposed card, or leads if the pile is gone.
        return _with(
            state,
            hands=hands,
            pile=rest,
            moves=state.moves + 1,
            phase=BEAT_OR_TAKE if rest else LEAD,
            to_move=1 - seat,
            opened=now,
        )

    def _backstop(self, state: TrumpsState, events: list[Event]) -> TrumpsState:
        sizes = (len(state.hands[0]), len(state.hands[1]))
        if sizes[0] == sizes[1]:
            events.append(Event(EV_DRAWN, None, {"reason": END_BACKSTOP}))
            return _over(state, None, END_BACKSTOP)
        winner = 0 if sizes[0] < sizes[1] else 1
        events.append(Event(EV_WON, winner, {"reason": END_BACKSTOP}))
        return _over(state, winner, END_BACKSTOP)

    # -- time -------------------------------------------------------------------------------

    def next_deadline(self, state: TrumpsState) -> float | None:
        if state.phase == OVER:
            return None
        return state.opened + state.turn_seconds

    def on_deadline(self, state: TrumpsState, rng: Random, now: float) -> Step[TrumpsState]:
        seat = state.to_move
        if seat is None:
            raise IllegalAction(ERR_GAME_OVER)
        step = self.apply(state, seat, default_action(state), rng, now)
        return Step(step.state, (Event(EV_TIMEOUT, seat), *step.events))

    # -- what people see --------------------------------------------------------------------

    def view(self, state: TrumpsState, seat: int | None) -> TrumpsView:
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"no seat {seat!r} in Your Trumps")
        pile = state.pile
        facing: Card | None = None
        count = 0
        if state.phase == BEAT_OR_TAKE and state.to_move is not None:
            facing = pile[-1]
            count = take_count(len(pile), facing, state.trumps[state.to_move])
        return TrumpsView(
            seat=seat,
            phase=state.phase,
            to_move=state.to_move,
            dealer=state.dealer,
            trumps=state.trumps,
            hand=() if seat is None else state.hands[seat],
            hand_sizes=(len(state.hands[0]), len(state.hands[1])),
            pile_size=len(pile),
            pile_top=pile[-PILE_SHOWN:],
            facing=facing,
            take_count=count,
            moves=state.moves,
            max_moves=MAX_MOVES,
            deadline=self.next_deadline(state),
            finished=state.phase == OVER,
            winner=state.winner,
            drawn=state.drawn,
            end_reason=state.end_reason,
            deck_size=52 if state.deck52 else 36,
        )

    def outcome(self, state: TrumpsState) -> Outcome | None:
        if state.phase != OVER:
            return None
        if state.winner is None:
            return Outcome((1, 1))
        return Outcome((1, 2) if state.winner == 0 else (2, 1))

    def standings(self, state: TrumpsState) -> Outcome | None:
        """The outcome if the game stopped now: the 400-move backstop applied to this state.

        Ranking (the rules' backstop end): fewer cards in hand wins, equal counts are a draw
        (hands are counted as they stand, also between a beat and its second card, as the
        backstop does). Barely begun: the trumps are still being chosen, or the first round
        of play is not complete: the non-dealer has led but the dealer has not finished his
        answer yet (a take, or a beat and its second card).
        """
        if state.phase == OVER:
            return self.outcome(state)
        if state.phase == CHOOSE_TRUMP or state.moves < 2:
            return None
        if state.moves == 2 and state.phase == SECOND:
            return None  # the dealer beat the lead and still owes his second card
        sizes = (len(state.hands[0]), len(state.hands[1]))
        return Outcome(places_from_ranking(sizes))

    # -- the computer player ----------------------------------------------------------------

    def choose(self, state: TrumpsState, seat: int, rng: Random) -> TrumpsAction:
        if seat != state.to_move:
            raise IllegalAction(ERR_GAME_OVER if state.phase == OVER else ERR_NOT_YOUR_TURN)
        if state.phase == CHOOSE_TRUMP:
            return _CHOOSE[computer.choose_trump(state, seat, rng)]
        if state.phase == BEAT_OR_TAKE:
            chosen = computer.choose_beat(state, seat)
            return _TAKE if chosen is None else _PLAY[chosen]
        return _PLAY[computer.choose_lay(state, seat)]

    # -- codes and storage ------------------------------------------------------------------

    def encode_action(self, action: TrumpsAction) -> str:
        if isinstance(action, PlayCard):
            return "p" + action.card.code
        if isinstance(action, Take):
            return "k"
        if isinstance(action, ChooseTrump):
            return "t" + action.suit.value
        raise IllegalAction(ERR_BAD_ACTION)

    def decode_action(self, code: str) -> TrumpsAction:
        action = _DECODE.get(code) if isinstance(code, str) else None
        if action is None:
            raise IllegalAction(ERR_BAD_ACTION)
        return action

    def dump(self, state: TrumpsState) -> dict[str, Any]:
        return {
            "dealer": state.dealer,
            "phase": state.phase,
            "to_move": state.to_move,
            "trumps": [None if s is None else s.value for s in state.trumps],
            "hands": [[c.code for c in state.hands[0]], [c.code for c in state.hands[1]]],
            "pile": [c.code for c in state.pile],
            "stock": [c.code for c in state.stock],
            "moves": state.moves,
            "deck52": state.deck52,
            "opened": state.opened,
            "turn_seconds": state.turn_seconds,
            "winner": state.winner,
            "drawn": state.drawn,
            "end_reason": state.end_reason,
        }

    def load(self, data: Mapping[str, Any]) -> TrumpsState:
        phase = data["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        trumps = data["trumps"]
        hands = data["hands"]
        return TrumpsState(
            dealer=int(data["dealer"]),
            phase=phase,
            to_move=data["to_move"],
            trumps=(_suit_or_none(trumps[0]), _suit_or_none(trumps[1])),
            hands=(_cards(hands[0]), _cards(hands[1])),
            pile=_cards(data["pile"]),
            stock=_cards(data["stock"]),
            moves=int(data["moves"]),
            deck52=bool(data["deck52"]),
            opened=float(data["opened"]),
            turn_seconds=float(data["turn_seconds"]),
            winner=data["winner"],
            drawn=bool(data["drawn"]),
            end_reason=data["end_reason"],
        )


def _sorted(cards: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=HAND_ORDER.__getitem__))


def _cards(codes: Sequence[str]) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in codes)


def _suit_or_none(letter: str | None) -> Suit | None:
    return None if letter is None else _SUIT_BY_LETTER[letter]


def _over(state: TrumpsState, winner: int | None, reason: str) -> TrumpsState:
    return _with(
        state,
        phase=OVER,
        to_move=None,
        winner=winner,
        drawn=winner is None,
        end_reason=reason,
    )


def _with(
    state: TrumpsState,
    *,
    phase: str | None = None,
    to_move: int | None,
    trumps: tuple[Suit | None, Suit | None] | None = None,
    hands: tuple[tuple[Card, ...], tuple[Card, ...]] | None = None,
    pile: tuple[Card, ...] | None = None,
    stock: tuple[Card, ...] | None = None,
    moves: int | None = None,
    opened: float | None = None,
    winner: int | None = None,
    drawn: bool = False,
    end_reason: str | None = None,
) -> TrumpsState:
    """A copy with some fields changed; much faster than ``dataclasses.replace``.

    ``to_move`` is always given (``None`` is a real value for it). The ending fields are
    always taken from the arguments: only ``_over`` sets them.
    """
    return TrumpsState(
        state.dealer,
        state.phase if phase is None else phase,
        to_move,
        state.trumps if trumps is None else trumps,
        state.hands if hands is None else hands,
        state.pile if pile is None else pile,
        state.stock if stock is None else stock,
        state.moves if moves is None else moves,
        state.deck52,
        state.opened if opened is None else opened,
        state.turn_seconds,
        winner,
        drawn,
        end_reason,
    )


TRUMPS: Final = TrumpsRules()
