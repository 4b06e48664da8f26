"""Rank's engine: the deal, the turn, the return rule, the end, timeouts and the view.

The rules are /work/shared/rules/rank.md. Readings of my own where that file is silent (each
has a test in tests/games/test_rank.py):

- A joker is never "adjacent"; it is played only through :class:`PlayJoker`. An ace is an
  ordinary adjacent card on a 2 or a K, and an escape (playable on anything, an ace included)
  only when the player holds no adjacent natural card.
- Rule 1 forbids drawing, jokers and non-adjacent aces while an adjacent natural card is held.
- After a joker, the follow-up phase is offered only when the hand holds a natural card
  adjacent to the named rank; otherwise the turn ends by itself (no pointless "End turn"
  click). A joker that was the last card ends the turn too (the exit is then pending).
- A drawn card "can be played" when it is adjacent to the rank on top, an ace (the player had
  no adjacent card, or he could not have drawn) or a joker. The drawn card goes into the hand
  at once; phase ``drawn`` only marks it.
- The pending exit of A is judged by B's first action: a play of any kind (natural card or
  joker, judged when the card lands, before a joker's follow-up) brings A back; a draw or a
  pass (which happens only when there is nothing to draw, so A could not draw either) makes
  A's exit stand. A returning player draws after B's card has landed, so a reshuffle for him
  keeps B's card on top. While an exit is pending the game does not end, even when only one
  other player holds cards: that player's first action decides.
- Rounds: a round is complete when every seat holding cards has finished a turn in it; the
  round-limit backstop ends the game when round ``round_limit`` is complete. The stalled
  backstop fires when as many consecutive passes as there are players holding cards have
  happened (a whole round in which nobody could play or draw).
- Each decision is its own window: drawing a playable card or playing a joker with a
  possible follow-up opens a fresh window for that decision (at most three per turn).
- The timeout default plays out the whole turn in one go: e.g. draw, then play the drawn card;
  or joker, then its follow-up. In phase ``follow`` it plays the first follow-up card (order
  A 2 … K, then suit). A drawn joker is named like a joker from hand: one above the first
  natural card in hand (A when there is none).
- The option ``round_limit`` accepts any positive integer, or 0 (the default): about ten
  minutes' worth for the number of players (``AUTO_ROUND_LIMITS``). The lobby offers 0, 25,
  50, 100 and 200.
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any, Final

from bot.games.cards import ACE, JOKER, Card, parse_card, standard_deck
from bot.games.engine import (
    DEALER,
    TURN_SECONDS,
    Event,
    EventArg,
    IllegalAction,
    Options,
    OptionSpec,
    Outcome,
    Step,
    places_from_ranking,
)
from bot.games.rank.computer import choose_action
from bot.games.rank.model import (
    ADJACENT,
    AUTO_ROUND_LIMIT,
    AUTO_ROUND_LIMITS,
    DEFAULT_ROUND_LIMIT,
    DEFAULT_TURN_SECONDS,
    DRAW,
    DRAWN,
    END_TURN,
    ENDED_LOSER,
    ENDED_ROUND_LIMIT,
    ENDED_STALLED,
    ERR_BAD_ACTION,
    ERR_CANNOT_DRAW,
    ERR_CANNOT_PASS,
    ERR_GAME_OVER,
    ERR_ILLEGAL_CARD,
    ERR_MUST_PLAY,
    ERR_NO_JOKER,
    ERR_NOT_YOUR_TURN,
    ERR_PLAY_DRAWN,
    ERR_WRONG_PHASE,
    EV_BACKSTOP,
    EV_DREW,
    EV_DREW_CARD,
    EV_ENDED_TURN,
    EV_JOKER,
    EV_KEPT,
    EV_LAST_CARD,
    EV_LOST,
    EV_OUT,
    EV_PASSED,
    EV_PLAYED,
    EV_RESHUFFLED,
    EV_RETURNED,
    EV_RETURNED_CARDS,
    EV_ROUND_LIMIT,
    EV_STALLED,
    EV_TIMEOUT,
    FOLLOW,
    HAND_ORDER,
    HAND_SIZE,
    JOKER_PLAYS,
    KEEP,
    OVER,
    PASS,
    PHASES,
    PLAY,
    PLAYS,
    RING,
    ROUND_LIMITS,
    Draw,
    EndTurn,
    Keep,
    Pass,
    Play,
    PlayJoker,
    RankAction,
    RankState,
    RankView,
    decode_action,
    encode_action,
    race_places,
    rank_up,
)

ROUND_LIMIT: Final = "round_limit"
_ALL_JOKER_PLAYS: Final = tuple(JOKER_PLAYS[rank] for rank in RING)
_order = HAND_ORDER.__getitem__


def _distinct_sorted(cards: list[Card]) -> list[Card]:
    return sorted(set(cards), key=_order) if len(cards) > 1 else cards


def _can_draw(state: RankState) -> bool:
    return bool(state.stock) or len(state.discard) > 1


def _play_options(state: RankState, hand: tuple[Card, ...]) -> tuple[RankAction, ...]:
    near = ADJACENT[state.target_rank]
    adjacent: list[Card] = []
    aces: list[Card] = []
    joker = False
    for c in hand:
        if c.rank in near:
            adjacent.append(c)
        elif c.rank == ACE:
            aces.append(c)
        elif c is JOKER:
            joker = True
    if adjacent:
        return tuple(PLAYS[c] for c in _distinct_sorted(adjacent))
    options: list[RankAction] = [PLAYS[c] for c in _distinct_sorted(aces)]
    if joker:
        options.extend(_ALL_JOKER_PLAYS)
    if _can_draw(state):
        options.append(DRAW)
    if not options:
        options.append(PASS)
    return tuple(options)


def _follow_ups(hand: tuple[Card, ...], named: int) -> list[Card]:
    near = ADJACENT[named]
    return _distinct_sorted([c for c in hand if c.rank in near])


def legal_actions(state: RankState, seat: int) -> tuple[RankAction, ...]:
    if state.phase == OVER or seat != state.turn:
        return ()
    hand = state.hands[seat]
    if state.phase == PLAY:
        return _play_options(state, hand)
    if state.phase == DRAWN:
        drawn = state.drawn
        if drawn is None or drawn.is_joker:
            return (*_ALL_JOKER_PLAYS, KEEP)
        return (PLAYS[drawn], KEEP)
    named = state.named_rank if state.named_rank is not None else ACE
    return (*(PLAYS[c] for c in _follow_ups(hand, named)), END_TURN)


def _refusal(state: RankState, seat: int, action: object) -> str:
    """The error code for an action that is not legal (a reason the player can act on)."""
    if state.phase == OVER:
        return ERR_GAME_OVER
    if seat != state.turn:
        return ERR_NOT_YOUR_TURN
    phase = state.phase
    hand = state.hands[seat]
    must_play = phase == PLAY and any(c.rank in ADJACENT[state.target_rank] for c in hand)
    if isinstance(action, Play):
        if phase == DRAWN:
            return ERR_PLAY_DRAWN
        if phase == PLAY and must_play and action.card in hand:
            return ERR_MUST_PLAY
        return ERR_ILLEGAL_CARD
    if isinstance(action, PlayJoker):
        if action.rank not in JOKER_PLAYS:
            return ERR_BAD_ACTION
        if phase == DRAWN:
            return ERR_PLAY_DRAWN
        if phase == FOLLOW:
            return ERR_WRONG_PHASE
        return ERR_MUST_PLAY if JOKER in hand else ERR_NO_JOKER
    if isinstance(action, Draw):
        if phase != PLAY:
            return ERR_WRONG_PHASE
        return ERR_MUST_PLAY if must_play else ERR_CANNOT_DRAW
    if isinstance(action, Pass):
        return ERR_CANNOT_PASS if phase == PLAY else ERR_WRONG_PHASE
    if isinstance(action, Keep | EndTurn):
        return ERR_WRONG_PHASE
    return ERR_BAD_ACTION


def _joker_default_rank(hand: tuple[Card, ...]) -> int:
    """Timeout naming: one above the first natural card in hand; A with only jokers."""
    naturals = [c for c in hand if not c.is_joker]
    if not naturals:
        return ACE
    return rank_up(min(naturals, key=_order).rank)


def default_action(state: RankState) -> RankAction:
    """The rules file's timeout default for the seat to act, one decision at a time."""
    seat = state.turn
    if seat is None:
        raise IllegalAction(ERR_GAME_OVER)
    hand = state.hands[seat]
    if state.phase == DRAWN and state.drawn is not None:
        if state.drawn.is_joker:
            return JOKER_PLAYS[_joker_default_rank(hand)]
        return PLAYS[state.drawn]
    if state.phase == FOLLOW:
        return legal_actions(state, seat)[0]  # the first follow-up, or End turn
    cards = sorted(set(hand), key=_order)
    near = ADJACENT[state.target_rank]
    for c in cards:
        if c.rank in near:
            return PLAYS[c]
    for c in cards:
        if c.rank == ACE:
            return PLAYS[c]
    if JOKER in hand:
        return JOKER_PLAYS[_joker_default_rank(hand)]
    return DRAW if _can_draw(state) else PASS


class _Table:
    """A mutable working copy of one state while one action is applied."""

    __slots__ = (
        "discard",
        "drawn",
        "ended_by",
        "events",
        "had_turn",
        "hands",
        "loser",
        "named_rank",
        "now",
        "opened",
        "out",
        "passes",
        "pending",
        "phase",
        "rng",
        "round",
        "state",
        "stock",
        "turn",
    )

    def __init__(self, state: RankState, rng: Random, now: float) -> None:
        self.state = state
        self.rng = rng
        self.now = now
        self.hands = list(state.hands)
        self.stock = list(state.stock)
        self.discard = list(state.discard)
        self.turn = state.turn
        self.phase = state.phase
        self.named_rank = state.named_rank
        self.drawn = state.drawn
        self.out = list(state.out)
        self.pending = state.pending
        self.round = state.round
        self.had_turn = state.had_turn
        self.passes = state.passes
        self.opened = state.opened
        self.loser = state.loser
        self.ended_by = state.ended_by
        self.events: list[Event] = []

    def freeze(self) -> RankState:
        s = self.state
        return RankState(
            hands=tuple(self.hands),
            stock=tuple(self.stock),
            discard=tuple(self.discard),
            turn=self.turn,
            phase=self.phase,
            named_rank=self.named_rank,
            drawn=self.drawn,
            out=tuple(self.out),
            pending=self.pending,
            round=self.round,
            round_limit=s.round_limit,
            dealer=s.dealer,
            had_turn=self.had_turn,
            passes=self.passes,
            opened=self.opened,
            turn_seconds=s.turn_seconds,
            loser=self.loser,
            ended_by=self.ended_by,
        )

    def emit(
        self, code: str, seat: int | None, only_seat: int | None = None, **args: EventArg
    ) -> None:
        self.events.append(Event(code, seat, args, only_seat))

    # --- cards -----------------------------------------------------------------------

    def take(self, seat: int, c: Card) -> None:
        hand = self.hands[seat]
        i = hand.index(c)
        self.hands[seat] = hand[:i] + hand[i + 1 :]

    def give(self, seat: int, cards: list[Card]) -> None:
        self.hands[seat] = tuple(sorted(self.hands[seat] + tuple(cards), key=_order))

    def draw_one(self) -> Card | None:
        """The top card of the stock, reshuffling the discard pile under its top if needed."""
        if not self.stock:
            if len(self.discard) <= 1:
                return None
            moved = self.discard[:-1]
            self.rng.shuffle(moved)
            self.stock = moved
            self.discard = self.discard[-1:]
            self.emit(EV_RESHUFFLED, None, count=len(moved))
        return self.stock.pop()

    def holders(self) -> list[int]:
        return [seat for seat, hand in enumerate(self.hands) if hand]

    # --- the turn --------------------------------------------------------------------

    def act(self, seat: int, action: RankAction) -> None:
        # Only a first action (phase "play") can judge a pending exit.
        judged = self.pending if self.phase == PLAY else None
        if not isinstance(action, Pass):
            self.passes = 0
        if isinstance(action, Play | PlayJoker):
            if isinstance(action, Play):
                self.take(seat, action.card)
                self.discard.append(action.card)
                self.named_rank = None
                self.emit(EV_PLAYED, seat, card=action.card)
            else:
                self.take(seat, JOKER)
                self.discard.append(JOKER)
                self.named_rank = action.rank
                self.emit(EV_JOKER, seat, rank=action.rank)
            emptied = not self.hands[seat]
            if judged is not None:
                self.pending = None
            if emptied:
                self.pending = seat
            if judged is not None:
                self.judge(judged, played=True)
            if emptied:
                self.emit(EV_LAST_CARD, seat)
            if self.phase == OVER:
                return
            if (
                isinstance(action, PlayJoker)
                and not emptied
                and any(c.rank in ADJACENT[action.rank] for c in self.hands[seat])
            ):
                self.phase = FOLLOW
                self.drawn = None
                self.opened = self.now
                return
            self.end_turn(seat)
        elif isinstance(action, Draw):
            target = ADJACENT[self.state.target_rank]
            drawn = self.draw_one()
            if drawn is None:  # legal_actions never offers this; kept for safety
                raise IllegalAction(ERR_CANNOT_DRAW)
            self.give(seat, [drawn])
            self.emit(EV_DREW, seat)
            self.emit(EV_DREW_CARD, seat, seat, card=drawn)
            if judged is not None:
                self.pending = None
                self.judge(judged, played=False)
                if self.phase == OVER:
                    return
            if drawn.rank in target or drawn.rank == ACE or drawn.is_joker:
                self.phase = DRAWN
                self.drawn = drawn
                self.opened = self.now
            else:
                self.end_turn(seat)
        elif isinstance(action, Keep):
            self.emit(EV_KEPT, seat)
            self.end_turn(seat)
        elif isinstance(action, EndTurn):
            self.emit(EV_ENDED_TURN, seat)
            self.end_turn(seat)
        else:
            self.emit(EV_PASSED, seat)
            if judged is not None:
                self.pending = None
                self.judge(judged, played=False)
                if self.phase == OVER:
                    return
            self.passes += 1
            self.end_turn(seat)

    def judge(self, seat: int, *, played: bool) -> None:
        """Decide the pending exit of ``seat``: back with up to two cards, or out for good."""
        if played:
            got: list[Card] = []
            while len(got) < 2:
                c = self.draw_one()
                if c is None:
                    break
                got.append(c)
            if got:
                self.give(seat, got)
                self.emit(EV_RETURNED, seat, count=len(got))
                self.emit(EV_RETURNED_CARDS, seat, seat, cards=tuple(got))
                return
        self.out.append(seat)
        self.emit(EV_OUT, seat, place=len(self.out))
        holders = self.holders()
        if self.pending is None and len(holders) <= 1:
            self.finish(holders[0] if holders else None)

    def end_turn(self, seat: int) -> None:
        self.phase = PLAY
        self.drawn = None
        self.had_turn |= 1 << seat
        holders = self.holders()
        if not holders:
            # Unreachable by the rules (a returning player always finds the card just played
            # under the top); ending here keeps any hand-made state from looping forever.
            self.backstop(ENDED_STALLED)
            return
        if self.passes and self.passes >= len(holders):
            self.backstop(ENDED_STALLED)
            return
        everyone = 0
        for holder in holders:
            everyone |= 1 << holder
        if self.had_turn & everyone == everyone:
            if self.round >= self.state.round_limit:
                self.backstop(ENDED_ROUND_LIMIT)
                return
            self.round += 1
            self.had_turn = 0
        players = len(self.hands)
        nxt = (seat + 1) % players
        while not self.hands[nxt]:
            nxt = (nxt + 1) % players
        self.turn = nxt
        self.opened = self.now

    # --- the end ---------------------------------------------------------------------

    def close(self, ended_by: str) -> None:
        self.phase = OVER
        self.turn = None
        self.drawn = None
        self.ended_by = ended_by

    def finish(self, loser: int | None) -> None:
        self.loser = loser
        self.close(ENDED_LOSER)
        if loser is not None:
            self.emit(EV_LOST, loser)

    def backstop(self, reason: str) -> None:
        if self.pending is not None:
            seat, self.pending = self.pending, None
            self.out.append(seat)
            self.emit(EV_OUT, seat, place=len(self.out))
        if reason == ENDED_STALLED:
            self.emit(EV_STALLED, None)
        else:
            self.emit(EV_ROUND_LIMIT, None, round=self.round)
        self.emit(EV_BACKSTOP, None)
        self.close(reason)


class RankRules:
    """Rank (Ранг): 2–10 players, shed cards by adjacent rank, don't be the last one."""

    key: str = "rank"
    min_players: int = 2
    max_players: int = 10
    options: tuple[OptionSpec, ...] = (OptionSpec(ROUND_LIMIT, ROUND_LIMITS, DEFAULT_ROUND_LIMIT),)

    # --- setting up ------------------------------------------------------------------

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> RankState:
        if not self.min_players <= seats <= self.max_players:
            raise ValueError(f"Rank needs 2 to 10 players, not {seats}")
        dealer = options.get(DEALER)
        if dealer is None:
            dealer = rng.randrange(seats)
        if not isinstance(dealer, int) or not 0 <= dealer < seats:
            raise ValueError(f"bad dealer: {dealer!r}")
        round_limit = options.get(ROUND_LIMIT, DEFAULT_ROUND_LIMIT)
        if round_limit == AUTO_ROUND_LIMIT:
            round_limit = AUTO_ROUND_LIMITS[seats]
        if not isinstance(round_limit, int) or round_limit < 1:
            raise ValueError(f"bad round limit: {round_limit!r}")
        turn_seconds = options.get(TURN_SECONDS, DEFAULT_TURN_SECONDS)
        decks = 1 if seats <= 4 else 2
        stock = standard_deck(jokers=2) * decks
        rng.shuffle(stock)
        dealt: list[list[Card]] = [[] for _ in range(seats)]
        for _ in range(HAND_SIZE):
            for step in range(1, seats + 1):
                dealt[(dealer + step) % seats].append(stock.pop())
        top = stock.pop()
        while top.is_joker:
            # Back into the stock at a random place below the new top card.
            stock.insert(rng.randrange(len(stock)), top)
            top = stock.pop()
        return RankState(
            hands=tuple(tuple(sorted(hand, key=_order)) for hand in dealt),
            stock=tuple(stock),
            discard=(top,),
            turn=(dealer + 1) % seats,
            round_limit=round_limit,
            dealer=dealer,
            opened=now,
            turn_seconds=turn_seconds,
        )

    def rematch_options(self, state: RankState, options: Options) -> dict[str, Any]:
        return {**options, DEALER: (state.dealer + 1) % state.players}

    # --- playing ---------------------------------------------------------------------

    def acting_seats(self, state: RankState) -> tuple[int, ...]:
        return () if state.turn is None else (state.turn,)

    def legal_actions(self, state: RankState, seat: int) -> tuple[RankAction, ...]:
        return legal_actions(state, seat)

    def apply(
        self, state: RankState, seat: int, action: RankAction, rng: Random, now: float
    ) -> Step[RankState]:
        if action not in legal_actions(state, seat):
            raise IllegalAction(_refusal(state, seat, action))
        table = _Table(state, rng, now)
        table.act(seat, action)
        return Step(table.freeze(), tuple(table.events))

    def next_deadline(self, state: RankState) -> float | None:
        if state.phase == OVER:
            return None
        return state.opened + state.turn_seconds

    def on_deadline(self, state: RankState, rng: Random, now: float) -> Step[RankState]:
        seat = state.turn
        if seat is None:
            return Step(state, ())
        events = [Event(EV_TIMEOUT, seat)]
        while True:
            step = self.apply(state, seat, default_action(state), rng, now)
            state = step.state
            events.extend(step.events)
            if state.turn != seat or state.phase == PLAY:
                return Step(state, tuple(events))

    def choose(self, state: RankState, seat: int, rng: Random) -> RankAction:
        legal = legal_actions(state, seat)
        if not legal:
            raise IllegalAction(_refusal(state, seat, PASS))
        return choose_action(state, seat, legal)

    # --- looking ---------------------------------------------------------------------

    def view(self, state: RankState, seat: int | None) -> RankView:
        if seat is not None and not 0 <= seat < state.players:
            raise ValueError(f"no seat {seat}")
        own = seat is not None
        return RankView(
            seat=seat,
            players=state.players,
            hand=tuple(sorted(state.hands[seat], key=_order)) if seat is not None else (),
            hand_sizes=tuple(len(hand) for hand in state.hands),
            top=state.top,
            named_rank=state.named_rank,
            stock_size=len(state.stock),
            discard_size=len(state.discard),
            turn=state.turn,
            phase=state.phase,
            drawn=state.drawn if own and seat == state.turn and state.phase == DRAWN else None,
            out=state.out,
            pending=state.pending,
            round=state.round,
            round_limit=state.round_limit,
            dealer=state.dealer,
            deadline=self.next_deadline(state),
            finished=state.finished,
            loser=state.loser,
        )

    def outcome(self, state: RankState) -> Outcome | None:
        if state.phase != OVER:
            return None
        keys: list[tuple[int, int]] = []
        for seat, hand in enumerate(state.hands):
            if seat in state.out:
                keys.append((0, state.out.index(seat)))
            elif seat == state.loser:
                keys.append((2, 0))
            else:  # a backstop end: fewer cards first, equal counts share a place
                keys.append((1, len(hand)))
        return Outcome(places_from_ranking(keys))

    def standings(self, state: RankState) -> Outcome | None:
        """The outcome if the game stopped now: the backstop ending applied to this state.

        Ranking (the rules' backstop end): players already out keep their places in the
        order they went out, a pending exit standing (it ranks after those out); those still
        holding cards follow, fewer cards first, equal counts sharing a place. Barely begun:
        the first round is not complete (not every player holding cards has had a turn).
        """
        if state.phase == OVER:
            return self.outcome(state)
        if state.round <= 1:
            return None
        return Outcome(race_places(state.out, state.pending, [len(h) for h in state.hands]))

    # --- codes and storage -----------------------------------------------------------

    def encode_action(self, action: RankAction) -> str:
        return encode_action(action)

    def decode_action(self, code: str) -> RankAction:
        action = decode_action(code)
        if action is None:
            raise IllegalAction(ERR_BAD_ACTION)
        return action

    def dump(self, state: RankState) -> dict[str, Any]:
        return {
            "hands": [[c.code for c in hand] for hand in state.hands],
            "stock": [c.code for c in state.stock],
            "discard": [c.code for c in state.discard],
            "turn": state.turn,
            "phase": state.phase,
            "named_rank": state.named_rank,
            "drawn": state.drawn.code if state.drawn is not None else None,
            "out": list(state.out),
            "pending": state.pending,
            "round": state.round,
            "round_limit": state.round_limit,
            "dealer": state.dealer,
            "had_turn": state.had_turn,
            "passes": state.passes,
            "opened": state.opened,
            "turn_seconds": state.turn_seconds,
            "loser": state.loser,
            "ended_by": state.ended_by,
        }

    def load(self, data: Mapping[str, Any]) -> RankState:
        phase = data["phase"]
        if phase not in PHASES:
            raise ValueError(f"bad phase: {phase!r}")
        drawn = data["drawn"]
        return RankState(
            hands=tuple(tuple(map(parse_card, hand)) for hand in data["hands"]),
            stock=tuple(map(parse_card, data["stock"])),
            discard=tuple(map(parse_card, data["discard"])),
            turn=data["turn"],
            phase=phase,
            named_rank=data["named_rank"],
            drawn=parse_card(drawn) if drawn is not None else None,
            out=tuple(data["out"]),
            pending=data["pending"],
            round=data["round"],
            round_limit=data["round_limit"],
            dealer=data["dealer"],
            had_turn=data["had_turn"],
            passes=data["passes"],
            opened=data["opened"],
            turn_seconds=data["turn_seconds"],
            loser=data["loser"],
            ended_by=data["ended_by"],
        )


RANK: Final = RankRules()
