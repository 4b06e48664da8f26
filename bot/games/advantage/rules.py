"""Advantage: the rules engine (deal, Drop → Exchange → Pairs cycles, end, timeouts).

Readings of the rules file where it leaves room, each covered by a test:

- The deal gives the non-dealer the 1st, 3rd and 5th card of the shuffled deck, the dealer
  the 2nd, 4th and 6th, the piles the next three; the rest is the stock, drawn from its end.
- Dropping is compulsory: while a hand holds a card that fits, Draw and Pass are refused.
  After a draw-when-stuck only the drawn card can fit (the piles have not changed), so the
  ``drop_drawn`` phase offers that card on each pile it fits, or Keep.
- Exchange phase: with no possible exchange the player may Draw or Pass. After the draw, if
  the drawn card allows an exchange, the ``exchange_drawn`` phase offers those exchanges or
  Pass; otherwise the turn ends at once (event ``advantage.no_fit``).
- A drop or exchange made with a private card makes it public (it is on a pile now). Every
  card on a pile was face up when it got there, so the views show whole piles, not just tops.
- Pairs: each player in turn (non-dealer first) lays aside every pair in his hand, lowest
  rank first, two cards per pair in suit order ♠ ♥ ♦ ♣; then draws two cards per pair (fewer
  when the stock runs short) and repeats while the draws make new pairs.
- End: at the end of each cycle that began with the stock empty (``last_cycle`` ≥ 1), the
  game ends if that cycle saw no drop and no pair (``quiet``), or if it was the 6th such
  cycle (``backstop``). A cycle in which the stock runs out is not one of the six.
- Forced passes are still a button press (the rules file lists Pass among the buttons); the
  timeout default presses it for an absent player.
- Each decision opens a new turn window, also the decision after a draw-when-stuck.
- The timeout default in ``drop_drawn`` drops the drawn card on the first pile that takes it,
  as the default for a stuck drop turn does after its draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from random import Random
from typing import Any, Final

from bot.games.advantage.matching import (
    can_drop,
    can_exchange,
    drop_table,
    exchange_table,
    index,
    order,
)
from bot.games.advantage.player import choose_action
from bot.games.advantage.state import (
    DRAW,
    END_BACKSTOP,
    END_QUIET,
    HAND_SIZE,
    KEEP,
    LAST_CYCLES,
    PASS,
    PHASE_DROP,
    PHASE_DROP_DRAWN,
    PHASE_EXCHANGE,
    PHASE_EXCHANGE_DRAWN,
    PHASE_OVER,
    PHASES,
    PILE_COUNT,
    SEATS,
    STRICT_COLOURS,
    AdvantageAction,
    AdvantageState,
    Draw,
    Drop,
    Exchange,
    Keep,
    Pass,
)
from bot.games.advantage.view import AdvantageView, build_view
from bot.games.cards import Card, parse_card, shuffled, standard_deck
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

KEY: Final = "advantage"
DEFAULT_TURN_SECONDS: Final = 60.0

# Event codes (the i18n keys of their sentences).
EV_DROPPED: Final = "advantage.dropped"  # seat; card, pile
EV_DREW: Final = "advantage.drew"  # seat; count
EV_DREW_CARDS: Final = "advantage.drew_cards"  # seat, only_seat; cards
EV_STOCK_EMPTY: Final = "advantage.stock_empty"  # no args
EV_NO_FIT: Final = "advantage.no_fit"  # seat; phase
EV_KEPT: Final = "advantage.kept"  # seat
EV_PASSED: Final = "advantage.passed"  # seat; phase
EV_EXCHANGED: Final = "advantage.exchanged"  # seat; card, pile, cards
EV_EXCHANGE_STARTED: Final = "advantage.exchange_started"  # cycle
EV_PAIR: Final = "advantage.pair"  # seat; cards, rank
EV_CYCLE_STARTED: Final = "advantage.cycle_started"  # cycle, last_cycle, last_cycles
EV_WON: Final = "advantage.won"  # seat; pairs, other_pairs, reason
EV_TIED: Final = "advantage.tied"  # pairs, reason
EV_TIMEOUT: Final = "advantage.timeout"  # seat

EVENT_CODES: Final = (
    EV_DROPPED,
    EV_DREW,
    EV_DREW_CARDS,
    EV_STOCK_EMPTY,
    EV_NO_FIT,
    EV_KEPT,
    EV_PASSED,
    EV_EXCHANGED,
    EV_EXCHANGE_STARTED,
    EV_PAIR,
    EV_CYCLE_STARTED,
    EV_WON,
    EV_TIED,
    EV_TIMEOUT,
)

# IllegalAction codes.
ERR_BAD_ACTION: Final = "bad_action"
ERR_GAME_OVER: Final = "advantage.game_over"
ERR_NOT_YOUR_TURN: Final = "advantage.not_your_turn"
ERR_WRONG_PHASE: Final = "advantage.wrong_phase"
ERR_BAD_PILE: Final = "advantage.bad_pile"
ERR_NOT_IN_HAND: Final = "advantage.not_in_hand"
ERR_NOT_DRAWN_CARD: Final = "advantage.not_drawn_card"
ERR_NO_MATCH: Final = "advantage.no_match"
ERR_MUST_DROP: Final = "advantage.must_drop"
ERR_MUST_DRAW: Final = "advantage.must_draw"
ERR_CAN_EXCHANGE: Final = "advantage.can_exchange"
ERR_STOCK_EMPTY: Final = "advantage.stock_empty"

ERROR_CODES: Final = (
    ERR_BAD_ACTION,
    ERR_GAME_OVER,
    ERR_NOT_YOUR_TURN,
    ERR_WRONG_PHASE,
    ERR_BAD_PILE,
    ERR_NOT_IN_HAND,
    ERR_NOT_DRAWN_CARD,
    ERR_NO_MATCH,
    ERR_MUST_DROP,
    ERR_MUST_DRAW,
    ERR_CAN_EXCHANGE,
    ERR_STOCK_EMPTY,
)

_DECK: Final = tuple(standard_deck())
# Actions are interned per (card, pile) so legal_actions does not build dataclasses each step.
_DROPS: Final = tuple(Drop(c, p) for c in _DECK for p in range(PILE_COUNT))
_EXCHANGES: Final = tuple(Exchange(c, p) for c in _DECK for p in range(PILE_COUNT))


def _sorted(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards, key=order)


def drop_moves(state: AdvantageState, seat: int) -> list[Drop]:
    """Every drop the seat's hand allows: lowest card first, then pile 0, 1, 2."""
    strict = state.strict_colours
    tables = [drop_table(p[-1], strict) for p in state.piles]
    moves: list[Drop] = []
    for c in _sorted(state.public[seat] + state.private[seat]):
        i = index(c)
        for p, table in enumerate(tables):
            if table[i]:
                moves.append(_DROPS[i * PILE_COUNT + p])
    return moves


def exchange_moves(state: AdvantageState, seat: int) -> list[Exchange]:
    """Every exchange the seat's hand allows: lowest card first, then pile 0, 1, 2."""
    strict = state.strict_colours
    tables = [exchange_table(p[-1], strict) for p in state.piles]
    moves: list[Exchange] = []
    for c in _sorted(state.public[seat] + state.private[seat]):
        i = index(c)
        for p, table in enumerate(tables):
            if table[i]:
                moves.append(_EXCHANGES[i * PILE_COUNT + p])
    return moves


class _Table:
    """A mutable working copy of a state for the duration of one ``apply``."""

    __slots__ = (
        "cycle",
        "dealer",
        "drawn",
        "end_reason",
        "events",
        "last_cycle",
        "pairs",
        "phase",
        "piles",
        "private",
        "public",
        "quiet",
        "state",
        "stock",
        "to_move",
    )

    def __init__(self, state: AdvantageState) -> None:
        self.state = state
        self.dealer = state.dealer
        self.stock = list(state.stock)
        self.public = [list(h) for h in state.public]
        self.private = [list(h) for h in state.private]
        self.piles = [list(p) for p in state.piles]
        self.pairs = [list(p) for p in state.pairs]
        self.phase = state.phase
        self.to_move = state.to_move
        self.drawn = state.drawn
        self.cycle = state.cycle
        self.last_cycle = state.last_cycle
        self.quiet = state.quiet
        self.end_reason = state.end_reason
        self.events: list[Event] = []

    def freeze(self, now: float) -> AdvantageState:
        s = self.state
        return AdvantageState(
            dealer=self.dealer,
            stock=tuple(self.stock),
            public=tuple(tuple(h) for h in self.public),
            private=tuple(tuple(h) for h in self.private),
            piles=tuple(tuple(p) for p in self.piles),
            pairs=tuple(tuple(p) for p in self.pairs),
            phase=self.phase,
            to_move=self.to_move,
            drawn=self.drawn,
            cycle=self.cycle,
            last_cycle=self.last_cycle,
            quiet=self.quiet,
            strict_colours=s.strict_colours,
            turn_seconds=s.turn_seconds,
            opened=now,
            end_reason=self.end_reason,
        )

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def remove(self, seat: int, c: Card) -> None:
        for cards in (self.public[seat], self.private[seat]):
            for i, held in enumerate(cards):
                if held is c:
                    del cards[i]
                    return
        raise IllegalAction(ERR_NOT_IN_HAND)

    def draw(self, seat: int, count: int) -> list[Card]:
        """Draw up to ``count`` cards into the seat's private cards and say so."""
        drawn: list[Card] = []
        while len(drawn) < count and self.stock:
            drawn.append(self.stock.pop())
        if drawn:
            self.private[seat].extend(drawn)
            self.emit(Event(EV_DREW, seat, {"count": len(drawn)}))
            self.emit(Event(EV_DREW_CARDS, seat, {"cards": tuple(drawn)}, only_seat=seat))
            if not self.stock:
                self.emit(Event(EV_STOCK_EMPTY))
        return drawn

    def drop(self, seat: int, c: Card, pile: int) -> None:
        self.remove(seat, c)
        self.piles[pile].append(c)
        self.quiet = False
        self.emit(Event(EV_DROPPED, seat, {"card": c, "pile": pile}))
        self.draw(seat, 1)

    def exchange(self, seat: int, c: Card, pile: int) -> None:
        self.remove(seat, c)
        taken = tuple(self.piles[pile])
        self.public[seat].extend(taken)
        self.piles[pile] = [c]
        self.emit(Event(EV_EXCHANGED, seat, {"card": c, "pile": pile, "cards": taken}))

    def lay_pairs(self, seat: int) -> None:
        """Lay aside every pair in the hand, draw two per pair, repeat while pairs form."""
        while True:
            by_rank: dict[int, list[Card]] = {}
            for c in self.public[seat]:
                by_rank.setdefault(c.rank, []).append(c)
            for c in self.private[seat]:
                by_rank.setdefault(c.rank, []).append(c)
            laid = 0
            for rank in sorted(r for r, cs in by_rank.items() if len(cs) >= 2):
                cards = _sorted(by_rank[rank])
                for i in range(0, len(cards) - 1, 2):
                    pair = (cards[i], cards[i + 1])
                    self.remove(seat, pair[0])
                    self.remove(seat, pair[1])
                    self.pairs[seat].extend(pair)
                    laid += 1
                    self.emit(Event(EV_PAIR, seat, {"cards": pair, "rank": rank}))
            if not laid:
                return
            self.quiet = False
            if not self.draw(seat, 2 * laid):
                return

    def end_turn(self) -> None:
        """Pass the move on: next player, next phase, or the pairs and the next cycle."""
        self.drawn = None
        first = 1 - self.dealer
        if self.phase in (PHASE_DROP, PHASE_DROP_DRAWN):
            if self.to_move == first:
                self.to_move, self.phase = self.dealer, PHASE_DROP
            else:
                self.to_move, self.phase = first, PHASE_EXCHANGE
                self.emit(Event(EV_EXCHANGE_STARTED, None, {"cycle": self.cycle}))
        elif self.to_move == first:
            self.to_move, self.phase = self.dealer, PHASE_EXCHANGE
        else:
            self.lay_pairs(first)
            self.lay_pairs(self.dealer)
            self.end_cycle()

    def end_cycle(self) -> None:
        if self.last_cycle and self.quiet:
            self.finish(END_QUIET)
            return
        if self.last_cycle >= LAST_CYCLES:
            self.finish(END_BACKSTOP)
            return
        self.cycle += 1
        if self.last_cycle:
            self.last_cycle += 1
        elif not self.stock:
            self.last_cycle = 1
        self.quiet = True
        self.phase, self.to_move = PHASE_DROP, 1 - self.dealer
        self.emit(
            Event(
                EV_CYCLE_STARTED,
                None,
                {"cycle": self.cycle, "last_cycle": self.last_cycle, "last_cycles": LAST_CYCLES},
            )
        )

    def finish(self, reason: str) -> None:
        self.phase, self.end_reason = PHASE_OVER, reason
        a, b = len(self.pairs[0]) // 2, len(self.pairs[1]) // 2
        if a == b:
            self.emit(Event(EV_TIED, None, {"pairs": a, "reason": reason}))
        else:
            winner = 0 if a > b else 1
            won, lost = max(a, b), min(a, b)
            self.emit(Event(EV_WON, winner, {"pairs": won, "other_pairs": lost, "reason": reason}))


def _by_pairs(state: AdvantageState) -> Outcome:
    """Places by pairs laid aside (more is better, equal counts share); scores: the counts."""
    counts = (state.pair_count(0), state.pair_count(1))
    return Outcome(
        places=places_from_ranking([-n for n in counts]),
        scores=tuple(float(n) for n in counts),
    )


def _in_hand(state: AdvantageState, seat: int, c: Card) -> bool:
    return any(held is c for held in state.public[seat]) or any(
        held is c for held in state.private[seat]
    )


def _check_card(state: AdvantageState, seat: int, c: Card, pile: int) -> None:
    if not isinstance(pile, int) or isinstance(pile, bool) or not 0 <= pile < PILE_COUNT:
        raise IllegalAction(ERR_BAD_PILE)
    if state.drawn is not None and c is not state.drawn:
        raise IllegalAction(ERR_NOT_DRAWN_CARD)
    if not isinstance(c, Card) or not _in_hand(state, seat, c):
        raise IllegalAction(ERR_NOT_IN_HAND)


class AdvantageRules:
    """Advantage for two players: the engine the registry serves under ``advantage``."""

    key: str = KEY
    min_players: int = SEATS
    max_players: int = SEATS
    options: tuple[OptionSpec, ...] = (OptionSpec(STRICT_COLOURS, (False, True), False),)

    # -- setting up -------------------------------------------------------------------------

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> AdvantageState:
        if seats != SEATS:
            raise ValueError(f"advantage is for {SEATS} players, not {seats}")
        dealer = options.get(DEALER)
        if dealer is None:
            dealer = rng.randrange(SEATS)
        if dealer not in (0, 1):
            raise ValueError(f"no such dealer seat: {dealer!r}")
        turn_seconds = options.get(TURN_SECONDS)
        deck = shuffled(_DECK, rng)
        first = 1 - dealer
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[first] = tuple(deck[0 : 2 * HAND_SIZE : 2])
        hands[dealer] = tuple(deck[1 : 2 * HAND_SIZE : 2])
        centre = 2 * HAND_SIZE
        return AdvantageState(
            dealer=dealer,
            stock=tuple(deck[centre + PILE_COUNT :]),
            public=tuple(hands),
            private=((), ()),
            piles=tuple((c,) for c in deck[centre : centre + PILE_COUNT]),
            pairs=((), ()),
            phase=PHASE_DROP,
            to_move=first,
            strict_colours=bool(options.get(STRICT_COLOURS, False)),
            turn_seconds=float(turn_seconds) if turn_seconds else DEFAULT_TURN_SECONDS,
            opened=now,
        )

    def rematch_options(self, state: AdvantageState, options: Options) -> dict[str, Any]:
        """The loser deals the rematch; a draw keeps the dealer."""
        winner = state.winner()
        result = dict(options)
        result[DEALER] = state.dealer if winner is None else 1 - winner
        return result

    # -- whose move, what is legal --------------------------------------------------------

    def acting_seats(self, state: AdvantageState) -> tuple[int, ...]:
        return () if state.phase == PHASE_OVER else (state.to_move,)

    def legal_actions(self, state: AdvantageState, seat: int) -> Sequence[AdvantageAction]:
        phase = state.phase
        if phase == PHASE_OVER or seat != state.to_move:
            return []
        if phase == PHASE_DROP:
            drops = drop_moves(state, seat)
            if drops:
                return drops
            return [DRAW] if state.stock else [PASS]
        if phase == PHASE_DROP_DRAWN:
            drawn = state.drawn
            return [d for d in drop_moves(state, seat) if d.card is drawn] + [KEEP]
        exchanges: list[AdvantageAction] = list(exchange_moves(state, seat))
        if phase == PHASE_EXCHANGE_DRAWN:
            drawn = state.drawn
            return [x for x in exchanges if isinstance(x, Exchange) and x.card is drawn] + [PASS]
        if exchanges:
            return [*exchanges, PASS]
        return [DRAW, PASS] if state.stock else [PASS]

    # -- playing ----------------------------------------------------------------------------

    def apply(
        self, state: AdvantageState, seat: int, action: AdvantageAction, rng: Random, now: float
    ) -> Step[AdvantageState]:
        phase = state.phase
        if phase == PHASE_OVER:
            raise IllegalAction(ERR_GAME_OVER)
        if seat != state.to_move:
            raise IllegalAction(ERR_NOT_YOUR_TURN)
        strict = state.strict_colours
        table = _Table(state)
        if isinstance(action, Drop):
            if phase not in (PHASE_DROP, PHASE_DROP_DRAWN):
                raise IllegalAction(ERR_WRONG_PHASE)
            _check_card(state, seat, action.card, action.pile)
            if not can_drop(action.card, state.piles[action.pile][-1], strict):
                raise IllegalAction(ERR_NO_MATCH)
            table.drop(seat, action.card, action.pile)
            table.end_turn()
        elif isinstance(action, Exchange):
            if phase not in (PHASE_EXCHANGE, PHASE_EXCHANGE_DRAWN):
                raise IllegalAction(ERR_WRONG_PHASE)
            _check_card(state, seat, action.card, action.pile)
            if not can_exchange(action.card, state.piles[action.pile][-1], strict):
                raise IllegalAction(ERR_NO_MATCH)
            table.exchange(seat, action.card, action.pile)
            table.end_turn()
        elif isinstance(action, Draw):
            self._draw(state, seat, table)
        elif isinstance(action, Keep):
            if phase != PHASE_DROP_DRAWN:
                raise IllegalAction(ERR_WRONG_PHASE)
            table.emit(Event(EV_KEPT, seat))
            table.end_turn()
        elif isinstance(action, Pass):
            if phase == PHASE_DROP_DRAWN:
                raise IllegalAction(ERR_WRONG_PHASE)
            if phase == PHASE_DROP:
                if drop_moves(state, seat):
                    raise IllegalAction(ERR_MUST_DROP)
                if state.stock:
                    raise IllegalAction(ERR_MUST_DRAW)
            table.emit(Event(EV_PASSED, seat, {"phase": phase}))
            table.end_turn()
        else:
            raise IllegalAction(ERR_BAD_ACTION)
        return Step(table.freeze(now), tuple(table.events))

    def _draw(self, state: AdvantageState, seat: int, table: _Table) -> None:
        phase = state.phase
        strict = state.strict_colours
        tops = [p[-1] for p in state.piles]
        if phase == PHASE_DROP:
            if drop_moves(state, seat):
                raise IllegalAction(ERR_MUST_DROP)
            fits = can_drop
            next_phase = PHASE_DROP_DRAWN
        elif phase == PHASE_EXCHANGE:
            if exchange_moves(state, seat):
                raise IllegalAction(ERR_CAN_EXCHANGE)
            fits = can_exchange
            next_phase = PHASE_EXCHANGE_DRAWN
        else:
            raise IllegalAction(ERR_WRONG_PHASE)
        if not state.stock:
            raise IllegalAction(ERR_STOCK_EMPTY)
        (drawn,) = table.draw(seat, 1)
        if any(fits(drawn, top, strict) for top in tops):
            table.phase, table.drawn = next_phase, drawn
        else:
            table.emit(Event(EV_NO_FIT, seat, {"phase": phase}))
            table.end_turn()

    # -- time -------------------------------------------------------------------------------

    def next_deadline(self, state: AdvantageState) -> float | None:
        if state.phase == PHASE_OVER:
            return None
        return state.opened + state.turn_seconds

    def on_deadline(self, state: AdvantageState, rng: Random, now: float) -> Step[AdvantageState]:
        """Drop: the lowest card that fits on the first pile that takes it; else draw (and
        drop the drawn card if it fits) or pass. Exchange: pass."""
        if state.phase == PHASE_OVER:
            return Step(state)
        seat = state.to_move
        events: list[Event] = [Event(EV_TIMEOUT, seat)]
        action: AdvantageAction = PASS
        if state.phase in (PHASE_DROP, PHASE_DROP_DRAWN):
            legal = self.legal_actions(state, seat)
            action = legal[0]  # drops come lowest card first, pile 0 first; else Draw/Pass
        step = self.apply(state, seat, action, rng, now)
        events.extend(step.events)
        if step.state.phase == PHASE_DROP_DRAWN and step.state.to_move == seat:
            step = self.apply(step.state, seat, self.legal_actions(step.state, seat)[0], rng, now)
            events.extend(step.events)
        return Step(step.state, tuple(events))

    # -- seeing -----------------------------------------------------------------------------

    def view(self, state: AdvantageState, seat: int | None) -> AdvantageView:
        return build_view(state, seat, self.next_deadline(state))

    def choose(self, state: AdvantageState, seat: int, rng: Random) -> AdvantageAction:
        return choose_action(state, seat, rng, self.legal_actions(state, seat))

    def outcome(self, state: AdvantageState) -> Outcome | None:
        if state.phase != PHASE_OVER:
            return None
        return _by_pairs(state)

    def standings(self, state: AdvantageState) -> Outcome | None:
        """The outcome if the game stopped now: more pairs laid aside ranks higher.

        Ranking: the pairs each player has laid aside so far, exactly as at the end of the
        game (more pairs is better, equal counts share a place; the scores are the pair
        counts). Barely begun: the first cycle (Drop, Exchange, Pairs) is not complete. Pairs
        are only laid aside at the end of a cycle, so until then nobody can have scored and a
        ranking would be a coin toss.
        """
        if state.phase == PHASE_OVER:
            return self.outcome(state)
        if state.cycle <= 1:
            return None
        return _by_pairs(state)

    # -- codes and storage ------------------------------------------------------------------

    def encode_action(self, action: AdvantageAction) -> str:
        if isinstance(action, Drop):
            return f"d{action.card.code}{action.pile}"
        if isinstance(action, Exchange):
            return f"x{action.card.code}{action.pile}"
        if isinstance(action, Draw):
            return "w"
        if isinstance(action, Keep):
            return "k"
        if isinstance(action, Pass):
            return "s"
        raise IllegalAction(ERR_BAD_ACTION)

    def decode_action(self, code: str) -> AdvantageAction:
        if code == "w":
            return DRAW
        if code == "k":
            return KEEP
        if code == "s":
            return PASS
        if isinstance(code, str) and len(code) == 4 and code[0] in "dx" and code[3] in "012":
            try:
                c = parse_card(code[1:3])
            except ValueError:
                raise IllegalAction(ERR_BAD_ACTION) from None
            if c.suit is not None:
                pile = int(code[3])
                return (
                    _DROPS[index(c) * PILE_COUNT + pile]
                    if code[0] == "d"
                    else _EXCHANGES[index(c) * PILE_COUNT + pile]
                )
        raise IllegalAction(ERR_BAD_ACTION)

    def dump(self, state: AdvantageState) -> dict[str, Any]:
        return {
            "dealer": state.dealer,
            "stock": [c.code for c in state.stock],
            "public": [[c.code for c in h] for h in state.public],
            "private": [[c.code for c in h] for h in state.private],
            "piles": [[c.code for c in p] for p in state.piles],
            "pairs": [[c.code for c in p] for p in state.pairs],
            "phase": state.phase,
            "to_move": state.to_move,
            "drawn": state.drawn.code if state.drawn is not None else None,
            "cycle": state.cycle,
            "last_cycle": state.last_cycle,
            "quiet": state.quiet,
            "strict_colours": state.strict_colours,
            "turn_seconds": state.turn_seconds,
            "opened": state.opened,
            "end_reason": state.end_reason,
        }

    def load(self, data: Mapping[str, Any]) -> AdvantageState:
        def cards(codes: Sequence[str]) -> tuple[Card, ...]:
            return tuple(parse_card(code) for code in codes)

        phase = data["phase"]
        if phase not in PHASES:
            raise ValueError(f"unknown advantage phase: {phase!r}")
        drawn = data.get("drawn")
        return AdvantageState(
            dealer=int(data["dealer"]),
            stock=cards(data["stock"]),
            public=tuple(cards(h) for h in data["public"]),
            private=tuple(cards(h) for h in data["private"]),
            piles=tuple(cards(p) for p in data["piles"]),
            pairs=tuple(cards(p) for p in data["pairs"]),
            phase=phase,
            to_move=int(data["to_move"]),
            drawn=parse_card(drawn) if drawn is not None else None,
            cycle=int(data["cycle"]),
            last_cycle=int(data["last_cycle"]),
            quiet=bool(data["quiet"]),
            strict_colours=bool(data["strict_colours"]),
            turn_seconds=float(data["turn_seconds"]),
            opened=float(data["opened"]),
            end_reason=data.get("end_reason"),
        )


ADVANTAGE: Final = AdvantageRules()
