"""Davay-ka! (Давай-ка!) engine: two players, one deck, real time (rules/davayka.md).

Both seats act at once: in phase "play" every seat that has a row card fitting a centre pile
may move, and presses are judged in the order they arrive against the state at arrival.
Time only enters as ``now``; every timed window is a deadline returned by ``next_deadline``
and resolved by ``on_deadline``, which handles *everything* due up to ``now`` in time order
(each item resolved at its own due time, so a late poller gives the same result as a punctual
one).

Deadlines (the lobby's ``turn_seconds`` is NOT used by this game):

* countdown (phase "ready", option ``countdown``, default 5 s): the round starts;
* stall window (phase "stall", 3 s): the «Давай-ка!» flip happens;
* idle window (phase "play", option ``idle_seconds``, default 10 s), per seat: the autopilot
  plays the seat's first legal move (leftmost row pile that fits, first centre pile it fits);
* forfeit (every phase, option ``forfeit_seconds``, default 120 s), per seat: a player who has
  pressed nothing accepted for that long loses the game.

Readings where the rules file is silent (each one has a test):

* The deal alternates from a shuffled deck (seat 0 gets the 1st, 3rd, … card). Every layout,
  the first one included, is made pass by pass from the top of the player's cards.
* Centre pile *i* belongs to seat *i* when there are two; with one pile it belongs to the
  player who has a stock. The owner flips onto it at a stall and recycles it when his stock is
  empty. Move codes index the centre piles as shown (0, or 0 and 1).
* Cards put "under the stock" keep this order: for the loser, the centre piles in pile order
  and then his row piles left to right, each pile turned over as a whole (its bottom card
  first). Nothing is shuffled between rounds.
* A row card played by either player resets both players' recycle counters.
* The idle window is per seat: it opens when the seat last moved, when play (re)started, or
  when the seat went from having no move to having one, whichever is latest. An autopilot move
  reopens it but does not count as a press for the forfeit clock. Both seats' windows closing
  at the same instant: seat 0's autopilot move is made first.
* A press refused by ``apply`` (too late, illegal) changes nothing, so it does not reset the
  forfeit clock either. Both players forfeiting at the same instant is a draw.
* "Too late" (``davayka.too_late``) is a press that was legal on some earlier panel: the pile
  still shows that card but it no longer fits that centre pile (the other player was faster,
  or a stall began) or that centre pile no longer exists; the card is no longer in any row
  (it was played already, and may have been recycled since); a Move during the countdown;
  Ready after the round started; «Давай-ка!» after the flip. ``davayka.illegal`` is a press no
  panel of this round could have offered: a card face down in a row, the top of another
  pile, a card of the other player's row, an index or seat out of range. So within a round a
  press that was legal on any earlier panel is either accepted or "too late", never
  "illegal" (a property the playout tests check).
* The round-end and game-end checks run after every change; a player left with no cards after
  a round has got rid of all his cards and wins the game at once.
* Rematch: there is no dealer in this game, so ``rematch_options`` keeps the options as they
  are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from random import Random
from typing import Any, Final

from bot.games.cards import Card, shuffled, standard_deck
from bot.games.davayka.state import (
    FLIP_ACTION,
    OVER,
    PLAY,
    READY,
    READY_ACTION,
    STALL,
    Action,
    CentreView,
    DavaykaState,
    DavaykaView,
    Flip,
    LastMove,
    Move,
    Pile,
    Play,
    Ready,
    Row,
    RowPileView,
    SeatView,
    decode_action,
    dump_state,
    encode_action,
    load_state,
)
from bot.games.engine import (
    Event,
    IllegalAction,
    Options,
    OptionSpec,
    Outcome,
    Step,
    places_from_ranking,
)

# --- constants -------------------------------------------------------------------------------

ROW_PILES: Final = 4
#: Cards per pass when laying out: one on each of piles 1–4, then 1–3, 1–2, 1.
LAYOUT_PASSES: Final = (4, 3, 2, 1)
STALL_SECONDS: Final = 3.0
MAX_RECYCLES: Final = 3
MAX_ROUNDS: Final = 30

OPTIONS: Final = (
    OptionSpec("countdown", (3, 5, 10), 5),
    OptionSpec("idle_seconds", (5, 10, 20), 10),
    OptionSpec("forfeit_seconds", (60, 120, 300), 120),
)

# Deadline kinds (view.deadline_kind and the ``kind`` arg of the timeout event).
KIND_COUNTDOWN: Final = "countdown"
KIND_STALL: Final = "stall"
KIND_IDLE: Final = "idle"
KIND_FORFEIT: Final = "forfeit"

# Event codes.
EV_LAID_OUT: Final = "davayka.laid_out"
EV_READY: Final = "davayka.ready"
EV_GO: Final = "davayka.go"
EV_FLIPPED: Final = "davayka.flipped"
EV_PLAYED: Final = "davayka.played"
EV_TURNED_UP: Final = "davayka.turned_up"
EV_STALL: Final = "davayka.stall"
EV_FLIP_PRESSED: Final = "davayka.flip_pressed"
EV_RECYCLED: Final = "davayka.recycled"
EV_RESHUFFLED: Final = "davayka.reshuffled"
EV_OUT: Final = "davayka.out"
EV_ROUND_WON: Final = "davayka.round_won"
EV_ROUND_DRAWN: Final = "davayka.round_drawn"
EV_TIMEOUT: Final = "davayka.timeout"
EV_FORFEITED: Final = "davayka.forfeited"
EV_GAME_WON: Final = "davayka.game_won"
EV_GAME_DRAWN: Final = "davayka.game_drawn"

EVENT_CODES: Final = (
    EV_LAID_OUT,
    EV_READY,
    EV_GO,
    EV_FLIPPED,
    EV_PLAYED,
    EV_TURNED_UP,
    EV_STALL,
    EV_FLIP_PRESSED,
    EV_RECYCLED,
    EV_RESHUFFLED,
    EV_OUT,
    EV_ROUND_WON,
    EV_ROUND_DRAWN,
    EV_TIMEOUT,
    EV_FORFEITED,
    EV_GAME_WON,
    EV_GAME_DRAWN,
)

# Error codes.
ERR_BAD_ACTION: Final = "bad_action"
ERR_ILLEGAL: Final = "davayka.illegal"
ERR_TOO_LATE: Final = "davayka.too_late"
ERR_ALREADY_PRESSED: Final = "davayka.already_pressed"
ERR_GAME_OVER: Final = "davayka.game_over"
ERR_NOT_YET: Final = "davayka.not_yet"

ERROR_CODES: Final = (
    ERR_BAD_ACTION,
    ERR_ILLEGAL,
    ERR_TOO_LATE,
    ERR_ALREADY_PRESSED,
    ERR_GAME_OVER,
    ERR_NOT_YET,
)

# Round-end and game-end reasons (args of the round/game events, view.end_reason).
REASON_OUT: Final = "out"
REASON_STUCK: Final = "stuck"
REASON_CARDS: Final = "cards"
REASON_ROUNDS: Final = "rounds"
REASON_FORFEIT: Final = "forfeit"

# Priority of deadlines due at the same instant: the phase window first, then the autopilot,
# then the forfeit (so an away player's last autopilot move still happens before he loses).
_PRIORITY: Final = {KIND_COUNTDOWN: 0, KIND_STALL: 0, KIND_IDLE: 1, KIND_FORFEIT: 2}

_EMPTY_ROW: Final[Row] = ((),) * ROW_PILES
_EMPTY_PILE_VIEW: Final = RowPileView(None, 0)


# --- pure helpers -----------------------------------------------------------------------------


def fits(card: Card, onto: Card) -> bool:
    """One rank above or below, suits ignored, wrapping A–K and A–2."""
    return (card.rank - onto.rank) % 13 in (1, 12)


def lay_out(cards: Sequence[Card]) -> tuple[Row, Pile]:
    """Deal a row pass by pass from the top of ``cards``; the rest is the stock."""
    piles: list[list[Card]] = [[] for _ in range(ROW_PILES)]
    k = 0
    n = len(cards)
    for width in LAYOUT_PASSES:
        for i in range(width):
            if k == n:
                break
            piles[i].append(cards[k])
            k += 1
    return tuple(tuple(p) for p in piles), tuple(cards[k:])


def row_cards(row: Row) -> Pile:
    return tuple(c for pile in row for c in pile)


_STATE_FIELDS: Final = tuple(f.name for f in fields(DavaykaState))
_STATE_INDEX: Final = {name: i for i, name in enumerate(_STATE_FIELDS)}
_state_values: Final = attrgetter(*_STATE_FIELDS)


def _replace(state: DavaykaState, **changes: Any) -> DavaykaState:
    """``dataclasses.replace`` for states, in a third less time (it runs on every step)."""
    values = list(_state_values(state))
    for name, value in changes.items():
        values[_STATE_INDEX[name]] = value
    return DavaykaState(*values)


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1 :])


def _moves(state: DavaykaState, seat: int) -> list[Move]:
    tops = [pile[-1].rank if pile else 0 for pile in state.centres]
    result: list[Move] = []
    for i, pile in enumerate(state.rows[seat]):
        if pile:
            top = pile[-1]
            for j, onto in enumerate(tops):
                if onto and (top.rank - onto) % 13 in (1, 12):
                    result.append(Move(i, top, j))
    return result


def _row_fits(row: Row, centres: tuple[Pile, ...]) -> bool:
    """Whether any top card of ``row`` fits any of the centre piles."""
    tops = [pile[-1].rank for pile in centres if pile]
    for pile in row:
        if pile:
            rank = pile[-1].rank
            for onto in tops:
                if (rank - onto) % 13 in (1, 12):
                    return True
    return False


def _has_move(state: DavaykaState, seat: int) -> bool:
    return _row_fits(state.rows[seat], state.centres)


def _may_act(state: DavaykaState, seat: int) -> bool:
    """Whether the seat has something to press: a move, or Ready / «Давай-ка!» not yet
    pressed. Only such time counts on his forfeit clock."""
    if state.phase == PLAY:
        return _has_move(state, seat)
    if state.phase in (READY, STALL):
        return not state.pressed[seat]
    return False


def _reclock(before: DavaykaState, after: DavaykaState, t: float) -> DavaykaState:
    """Stop a seat's forfeit clock at ``t`` when he is left with nothing to press, and run
    it on again, moved on by the stop, when he has something again."""
    paused = list(after.paused)
    last_press = list(after.last_press)
    changed = False
    for s in (0, 1):
        could, can = _may_act(before, s), _may_act(after, s)
        stopped = paused[s]
        if could and not can:
            paused[s], changed = t, True
        elif can and stopped is not None:
            last_press[s] += t - stopped
            paused[s], changed = None, True
        elif can and not could:
            # Stopped before the stop was recorded (a state saved by an older version):
            # the clock starts afresh.
            last_press[s], changed = max(last_press[s], t), True
    if not changed:
        return after
    return _replace(after, paused=tuple(paused), last_press=tuple(last_press))


def _fewer_row_cards(state: DavaykaState) -> int | None:
    """The seat with fewer cards in his row (the stuck round's winner); ``None`` if equal."""
    n0, n1 = (sum(map(len, row)) for row in state.rows)
    return None if n0 == n1 else (0 if n0 < n1 else 1)


def _gathered(state: DavaykaState, winner: int | None) -> tuple[list[Pile], Pile]:
    """Each seat's cards once the round ends with ``winner`` (``None``: a drawn round).

    The winner keeps his stock and puts his row under it; the loser puts both centre piles
    and his row under his stock (``taken``, the second value). In a drawn round each puts
    his own centre pile and his row under his stock (``taken`` is empty).
    """
    rows = [row_cards(row) for row in state.rows]
    if winner is None:
        cards: list[Pile] = []
        for s in (0, 1):
            own = tuple(
                c
                for pile, owner in zip(state.centres, state.centre_owners, strict=True)
                if owner == s
                for c in pile
            )
            cards.append(state.stocks[s] + own + rows[s])
        return cards, ()
    loser = 1 - winner
    taken = tuple(c for pile in state.centres for c in pile) + rows[loser]
    cards = [(), ()]
    cards[winner] = state.stocks[winner] + rows[winner]
    cards[loser] = state.stocks[loser] + taken
    return cards, taken


def make_state(
    *,
    rows: Sequence[Sequence[Sequence[Card]]],
    stocks: Sequence[Sequence[Card]],
    centres: Sequence[Sequence[Card]] = (),
    centre_owners: Sequence[int] | None = None,
    phase: str = PLAY,
    round_no: int = 1,
    rounds_won: Sequence[int] = (0, 0),
    pressed: Sequence[bool] = (False, False),
    opened: float = 0.0,
    idle_since: Sequence[float] = (0.0, 0.0),
    last_press: Sequence[float] = (0.0, 0.0),
    recycles: Sequence[int] = (0, 0),
    last_move: LastMove | None = None,
    winner: int | None = None,
    end_reason: str = "",
    countdown: float = 5.0,
    idle_seconds: float = 10.0,
    forfeit_seconds: float = 120.0,
) -> DavaykaState:
    """A state from explicit piles (for tests and tools). Rows are padded to four piles.

    Row and centre piles are given bottom → top, stocks top → bottom. Without
    ``centre_owners``, two centre piles belong to seats 0 and 1 and a single one to the seat
    that has a stock.
    """
    row_tuple = tuple(
        tuple(tuple(p) for p in row) + ((),) * (ROW_PILES - len(row)) for row in rows
    )
    stock_tuple = tuple(tuple(s) for s in stocks)
    centre_tuple = tuple(tuple(p) for p in centres)
    if centre_owners is None:
        if len(centre_tuple) == 2:
            centre_owners = (0, 1)
        elif len(centre_tuple) == 1:
            centre_owners = (0,) if stock_tuple[0] or not stock_tuple[1] else (1,)
        else:
            centre_owners = ()
    return DavaykaState(
        rows=row_tuple,
        stocks=stock_tuple,
        centres=centre_tuple,
        centre_owners=tuple(centre_owners),
        phase=phase,
        round_no=round_no,
        rounds_won=tuple(rounds_won),
        pressed=tuple(pressed),
        opened=float(opened),
        idle_since=tuple(float(t) for t in idle_since),
        last_press=tuple(float(t) for t in last_press),
        recycles=tuple(recycles),
        last_move=last_move,
        winner=winner,
        end_reason=end_reason,
        countdown=float(countdown),
        idle_seconds=float(idle_seconds),
        forfeit_seconds=float(forfeit_seconds),
    )


def _option(options: Options, key: str, default: float) -> float:
    value = options.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return default
    return float(value)


# --- the rules --------------------------------------------------------------------------------


class DavaykaRules:
    """The Davay-ka! rules object (see the module docstring for the readings chosen)."""

    key: Final = "davayka"
    min_players: Final = 2
    max_players: Final = 2
    options: Final = OPTIONS
    #: Presses are judged on their own merits at arrival (a Move carries the pile and the
    #: card the player saw), so the services skip their stale-version check for this game.
    realtime: Final = True

    # -- setup ----------------------------------------------------------------------------

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> DavaykaState:
        if seats != 2:
            raise ValueError("Davay-ka! is a game for exactly two players")
        deck = shuffled(standard_deck(), rng)
        row0, stock0 = lay_out(deck[0::2])
        row1, stock1 = lay_out(deck[1::2])
        t = float(now)
        return DavaykaState(
            rows=(row0, row1),
            stocks=(stock0, stock1),
            centres=(),
            centre_owners=(),
            phase=READY,
            round_no=1,
            rounds_won=(0, 0),
            pressed=(False, False),
            opened=t,
            idle_since=(t, t),
            last_press=(t, t),
            recycles=(0, 0),
            last_move=None,
            winner=None,
            end_reason="",
            countdown=_option(options, "countdown", 5.0),
            idle_seconds=_option(options, "idle_seconds", 10.0),
            forfeit_seconds=_option(options, "forfeit_seconds", 120.0),
        )

    # -- who may do what ------------------------------------------------------------------------

    def acting_seats(self, state: DavaykaState) -> tuple[int, ...]:
        """Seats with a non-empty ``legal_actions``: in play, those that have a move."""
        if state.phase == PLAY:
            return tuple(s for s in (0, 1) if _has_move(state, s))
        if state.phase in (READY, STALL):
            return tuple(s for s in (0, 1) if not state.pressed[s])
        return ()

    def acting_since(self, state: DavaykaState, seat: int) -> float:
        """Since when the seat has had what it may do now: in play, a move (its last move, or
        the change that gave it one); Ready or «Давай-ка!» since the phase opened. A computer
        seat acts a pause after this, whatever the other player does meanwhile."""
        return state.idle_since[seat] if state.phase == PLAY else state.opened

    def legal_actions(self, state: DavaykaState, seat: int) -> Sequence[Action]:
        """Ready / «Давай-ка!» when not yet pressed; in play one Play per fitting (pile,
        centre) pair, leftmost pile first, then centre 0 before 1."""
        if seat not in (0, 1):
            return []
        if state.phase == PLAY:
            return [Play(m.row_pile, m.centre, state.round_no) for m in _moves(state, seat)]
        if state.phase == READY and not state.pressed[seat]:
            return [READY_ACTION]
        if state.phase == STALL and not state.pressed[seat]:
            return [FLIP_ACTION]
        return []

    # -- actions -----------------------------------------------------------------------------

    def apply(
        self, state: DavaykaState, seat: int, action: Action, rng: Random, now: float
    ) -> Step[DavaykaState]:
        if seat not in (0, 1):
            raise IllegalAction(ERR_ILLEGAL)
        if state.phase == OVER:
            raise IllegalAction(ERR_GAME_OVER)
        t = float(now)
        events: list[Event] = []
        before = state
        if isinstance(action, Play):
            centre = self._judge_play(state, seat, action)
            state = self._play(state, seat, action.row_pile, centre, t, False, events)
        elif isinstance(action, Move):
            self._check_move(state, seat, action)
            state = self._play(state, seat, action.row_pile, action.centre, t, False, events)
        elif isinstance(action, Ready):
            if state.phase != READY:
                raise IllegalAction(ERR_TOO_LATE)
            if state.pressed[seat]:
                raise IllegalAction(ERR_ALREADY_PRESSED)
            state = _replace(
                state,
                pressed=_set(state.pressed, seat, True),
                last_press=_set(state.last_press, seat, t),
            )
            events.append(Event(EV_READY, seat))
            if all(state.pressed):
                state = self._start_round(state, t, events)
        elif isinstance(action, Flip):
            if state.phase != STALL:
                raise IllegalAction(ERR_TOO_LATE)
            if state.pressed[seat]:
                raise IllegalAction(ERR_ALREADY_PRESSED)
            state = _replace(
                state,
                pressed=_set(state.pressed, seat, True),
                last_press=_set(state.last_press, seat, t),
            )
            events.append(Event(EV_FLIP_PRESSED, seat))
            if all(state.pressed):
                state = self._flip(state, rng, t, events)
        else:
            raise IllegalAction(ERR_ILLEGAL)
        return Step(_reclock(before, state, t), tuple(events))

    def _judge_play(self, state: DavaykaState, seat: int, play: Play) -> int:
        """The centre pile the top card of the pressed pile goes onto now: the one asked for
        if it fits there, else the first it fits (left before right). "Too late" when it fits
        nowhere, when the pile has been emptied, or when the press is from an earlier round;
        "not yet" during this round's countdown (a pile pressed before Ready). A finger's
        double tap never reaches the rules (the Telegram layer's ``PressThrottle``)."""
        if not 0 <= play.row_pile < ROW_PILES or play.round_no > state.round_no:
            raise IllegalAction(ERR_ILLEGAL)  # no panel has offered it
        if play.round_no < state.round_no:
            raise IllegalAction(ERR_TOO_LATE)
        if state.phase == READY:
            raise IllegalAction(ERR_NOT_YET)
        pile = state.rows[seat][play.row_pile]
        if state.phase != PLAY or not pile:
            raise IllegalAction(ERR_TOO_LATE)
        card = pile[-1]
        fitting = [j for j, on in enumerate(state.centres) if on and fits(card, on[-1])]
        if not fitting:
            raise IllegalAction(ERR_TOO_LATE)
        return play.centre if play.centre in fitting else fitting[0]

    def _check_move(self, state: DavaykaState, seat: int, move: Move) -> None:
        """Refuse a move that is not legal now: "too late" if some earlier panel could have
        offered it, "illegal" if none could."""
        if not (0 <= move.row_pile < ROW_PILES and 0 <= move.centre < 2):
            raise IllegalAction(ERR_ILLEGAL)
        pile = state.rows[seat][move.row_pile]
        if pile and pile[-1] == move.card:
            if (
                state.phase != PLAY
                or move.centre >= len(state.centres)
                or not state.centres[move.centre]
                or not fits(move.card, state.centres[move.centre][-1])
            ):
                raise IllegalAction(ERR_TOO_LATE)
            return
        if state.phase == READY:
            # No panel offers a move during the countdown: this one is from last round.
            raise IllegalAction(ERR_TOO_LATE)
        if any(move.card in pile for row in state.rows for pile in row):
            # Face down under that pile, the top of another pile, or someone else's card:
            # no panel of this round can have offered it (row piles only shrink).
            raise IllegalAction(ERR_ILLEGAL)
        # The card has left the rows: it was played already (and maybe recycled since).
        raise IllegalAction(ERR_TOO_LATE)

    # -- state changes -------------------------------------------------------------------------

    def _play(
        self,
        state: DavaykaState,
        seat: int,
        pile_index: int,
        centre: int,
        t: float,
        auto: bool,
        events: list[Event],
    ) -> DavaykaState:
        """Move a row card (already checked) to a centre pile, then settle what follows."""
        row = state.rows[seat]
        pile = row[pile_index]
        card = pile[-1]
        rest = pile[:-1]
        new_row = _set(row, pile_index, rest)
        events.append(
            Event(
                EV_PLAYED,
                seat,
                {"card": card, "pile": pile_index, "centre": centre, "auto": int(auto)},
            )
        )
        if rest:
            # The uncovered card turns face up at once: being the top is being face up.
            events.append(Event(EV_TURNED_UP, seat, {"card": rest[-1], "pile": pile_index}))
        rows = _set(state.rows, seat, new_row)
        centres = _set(state.centres, centre, state.centres[centre] + (card,))
        # An autopilot move is no press: only a real one resets the forfeit clock.
        last_press = state.last_press if auto else _set(state.last_press, seat, t)
        last_move = LastMove(seat, pile_index, card, centre, auto)
        # One state built per move (building frozen states is the engine's main cost).
        if not any(new_row):
            events.append(Event(EV_OUT, seat))
            state = _replace(
                state,
                rows=rows,
                centres=centres,
                recycles=(0, 0),
                last_move=last_move,
                last_press=last_press,
            )
            return self._end_round(state, seat, REASON_OUT, t, events)
        other = 1 - seat
        other_can = _row_fits(rows[other], centres)
        if not other_can and not _row_fits(new_row, centres):
            events.append(Event(EV_STALL))
            return _replace(
                state,
                rows=rows,
                centres=centres,
                recycles=(0, 0),
                last_move=last_move,
                last_press=last_press,
                phase=STALL,
                opened=t,
                pressed=(False, False),
            )
        idle = list(state.idle_since)
        idle[seat] = t
        if other_can and not _row_fits(state.rows[other], state.centres):
            idle[other] = t
        return _replace(
            state,
            rows=rows,
            centres=centres,
            recycles=(0, 0),
            last_move=last_move,
            last_press=last_press,
            idle_since=tuple(idle),
        )

    def _open_stall(self, state: DavaykaState, t: float, events: list[Event]) -> DavaykaState:
        events.append(Event(EV_STALL))
        return _replace(state, phase=STALL, opened=t, pressed=(False, False))

    def _resume(self, state: DavaykaState, t: float, events: list[Event]) -> DavaykaState:
        """After centre cards were flipped: play on, or another stall if nobody can move."""
        if _has_move(state, 0) or _has_move(state, 1):
            return _replace(state, phase=PLAY, pressed=(False, False), idle_since=(t, t))
        return self._open_stall(state, t, events)

    def _start_round(self, state: DavaykaState, t: float, events: list[Event]) -> DavaykaState:
        # A player without a stock has no centre pile: both play onto the other's one pile.
        owners = tuple(s for s in (0, 1) if state.stocks[s])
        stocks = list(state.stocks)
        centres: list[Pile] = []
        events.append(Event(EV_GO, None, {"round": state.round_no}))
        for j, s in enumerate(owners):
            card = stocks[s][0]
            stocks[s] = stocks[s][1:]
            centres.append((card,))
            events.append(Event(EV_FLIPPED, s, {"card": card, "centre": j}))
        state = _replace(
            state,
            stocks=tuple(stocks),
            centres=tuple(centres),
            centre_owners=owners,
            recycles=(0, 0),
            last_move=None,
        )
        return self._resume(state, t, events)

    def _flip(
        self, state: DavaykaState, rng: Random, t: float, events: list[Event]
    ) -> DavaykaState:
        """«Давай-ка!»: each centre pile's owner flips his stock's top card onto it."""
        stocks = list(state.stocks)
        centres = list(state.centres)
        recycles = list(state.recycles)
        for j, s in enumerate(state.centre_owners):
            if not stocks[s]:
                pile = centres[j]
                recycles[s] += 1
                if recycles[s] >= 2:
                    # Backstop: from the second consecutive recycle the pile is shuffled.
                    pile = tuple(shuffled(pile, rng))
                    code = EV_RESHUFFLED
                else:
                    code = EV_RECYCLED
                events.append(Event(code, s, {"count": len(pile), "centre": j}))
                # Turned over as a whole: the pile's bottom card becomes the stock's top.
                stocks[s] = pile
                centres[j] = ()
            if not stocks[s]:
                continue
            card = stocks[s][0]
            stocks[s] = stocks[s][1:]
            centres[j] = centres[j] + (card,)
            events.append(Event(EV_FLIPPED, s, {"card": card, "centre": j}))
        state = _replace(
            state,
            stocks=tuple(stocks),
            centres=tuple(centres),
            recycles=tuple(recycles),
            pressed=(False, False),
            last_move=None,
        )
        if state.centre_owners and all(recycles[s] >= MAX_RECYCLES for s in state.centre_owners):
            return self._end_round(state, _fewer_row_cards(state), REASON_STUCK, t, events)
        return self._resume(state, t, events)

    def _end_round(
        self,
        state: DavaykaState,
        winner: int | None,
        reason: str,
        t: float,
        events: list[Event],
    ) -> DavaykaState:
        """Gather the cards under the stocks, then the next layout or the end of the game."""
        cards, taken = _gathered(state, winner)
        won = state.rounds_won
        if winner is None:
            events.append(Event(EV_ROUND_DRAWN, None, {"round": state.round_no}))
        else:
            won = _set(won, winner, won[winner] + 1)
            events.append(
                Event(
                    EV_ROUND_WON,
                    winner,
                    {"round": state.round_no, "reason": reason, "taken": len(taken)},
                )
            )
        state = _replace(
            state,
            centres=(),
            centre_owners=(),
            rounds_won=won,
            pressed=(False, False),
            recycles=(0, 0),
            last_move=None,
            opened=t,
            idle_since=(t, t),
        )
        empty = [s for s in (0, 1) if not cards[s]]
        if empty or state.round_no >= MAX_ROUNDS:
            if empty:
                game_winner: int | None = empty[0]
                end = REASON_CARDS
            else:
                end = REASON_ROUNDS
                n0, n1 = len(cards[0]), len(cards[1])
                game_winner = None if n0 == n1 else (0 if n0 < n1 else 1)
            return self._finish(
                _replace(state, rows=(_EMPTY_ROW, _EMPTY_ROW), stocks=(cards[0], cards[1])),
                game_winner,
                end,
                events,
            )
        row0, stock0 = lay_out(cards[0])
        row1, stock1 = lay_out(cards[1])
        events.append(Event(EV_LAID_OUT, None, {"round": state.round_no + 1}))
        return _replace(
            state,
            rows=(row0, row1),
            stocks=(stock0, stock1),
            phase=READY,
            round_no=state.round_no + 1,
        )

    def _finish(
        self, state: DavaykaState, winner: int | None, reason: str, events: list[Event]
    ) -> DavaykaState:
        if winner is None:
            events.append(Event(EV_GAME_DRAWN, None, {"reason": reason}))
        else:
            events.append(Event(EV_GAME_WON, winner, {"reason": reason}))
        return _replace(
            state, phase=OVER, pressed=(False, False), winner=winner, end_reason=reason
        )

    # -- time ------------------------------------------------------------------------------------

    def _deadlines(self, state: DavaykaState) -> list[tuple[float, int, str, int]]:
        """Every pending deadline as (time, priority, kind, seat or -1)."""
        if state.phase == OVER:
            return []
        result: list[tuple[float, int, str, int]] = []
        if state.phase == READY:
            result.append((state.opened + state.countdown, 0, KIND_COUNTDOWN, -1))
        elif state.phase == STALL:
            result.append((state.opened + STALL_SECONDS, 0, KIND_STALL, -1))
        else:
            for s in (0, 1):
                if _has_move(state, s):
                    result.append((state.idle_since[s] + state.idle_seconds, 1, KIND_IDLE, s))
        for s in (0, 1):
            # Only time in which he has something to press counts (see ``_reclock``).
            if state.paused[s] is None and _may_act(state, s):
                result.append((state.last_press[s] + state.forfeit_seconds, 2, KIND_FORFEIT, s))
        return result

    def next_deadline(self, state: DavaykaState) -> float | None:
        """The earliest pending deadline (the forfeit clocks are always pending)."""
        pending = self._deadlines(state)
        return min(pending)[0] if pending else None

    def on_deadline(self, state: DavaykaState, rng: Random, now: float) -> Step[DavaykaState]:
        """Resolve every deadline due at ``now``, earliest first, each at its own time."""
        events: list[Event] = []
        while state.phase != OVER:
            pending = self._deadlines(state)
            if not pending:
                break
            first = min(pending)
            due, priority, kind = first[0], first[1], first[2]
            if due > now:
                break
            seats = [p[3] for p in pending if p[0] == due and p[1] == priority]
            before = state
            state = _reclock(before, self._resolve(state, kind, seats, due, rng, events), due)
        return Step(state, tuple(events))

    def _resolve(
        self,
        state: DavaykaState,
        kind: str,
        seats: list[int],
        t: float,
        rng: Random,
        events: list[Event],
    ) -> DavaykaState:
        if kind == KIND_COUNTDOWN:
            for s in (0, 1):
                if not state.pressed[s]:
                    events.append(Event(EV_TIMEOUT, s, {"kind": KIND_COUNTDOWN}))
            return self._start_round(state, t, events)
        if kind == KIND_STALL:
            for s in (0, 1):
                if not state.pressed[s]:
                    events.append(Event(EV_TIMEOUT, s, {"kind": KIND_STALL}))
            return self._flip(state, rng, t, events)
        if kind == KIND_IDLE:
            for s in sorted(seats):
                if state.phase != PLAY:
                    break
                moves = _moves(state, s)
                if moves:
                    events.append(Event(EV_TIMEOUT, s, {"kind": KIND_IDLE}))
                    first = moves[0]
                    state = self._play(state, s, first.row_pile, first.centre, t, True, events)
            return state
        # Forfeit: the seats whose clocks ran out at this instant lose; both at once: a draw.
        for s in sorted(seats):
            events.append(Event(EV_TIMEOUT, s, {"kind": KIND_FORFEIT}))
            events.append(Event(EV_FORFEITED, s))
        winner = None if len(seats) == 2 else 1 - seats[0]
        return self._finish(state, winner, REASON_FORFEIT, events)

    # -- views ---------------------------------------------------------------------------------

    def view(self, state: DavaykaState, seat: int | None) -> DavaykaView:
        """Everything in this game is public except the order of face-down cards, so every
        seat sees the same table; ``seat`` only says whose panel it is."""
        pending = self._deadlines(state)
        deadline: float | None = None
        kind: str | None = None
        phase_deadline: float | None = None
        idle_at: list[float | None] = [None, None]
        forfeit_at: list[float | None] = [None, None]
        for due, _, k, s in pending:
            if k == KIND_IDLE:
                idle_at[s] = due
            elif k == KIND_FORFEIT:
                forfeit_at[s] = due
            else:
                phase_deadline = due
        if pending:
            first = min(pending)
            deadline, kind = first[0], first[2]
        seats = []
        for s in (0, 1):
            row = state.rows[s]
            in_row = sum(len(pile) for pile in row)
            seats.append(
                SeatView(
                    piles=tuple(
                        RowPileView(pile[-1], len(pile) - 1) if pile else _EMPTY_PILE_VIEW
                        for pile in row
                    ),
                    row_cards=in_row,
                    stock=len(state.stocks[s]),
                    cards=in_row + len(state.stocks[s]),
                    rounds_won=state.rounds_won[s],
                    pressed=state.pressed[s],
                    # In play an idle deadline is pending exactly when the seat has a move.
                    can_move=idle_at[s] is not None,
                    recycles=state.recycles[s],
                    idle_at=idle_at[s],
                    forfeit_at=forfeit_at[s],
                )
            )
        centres = tuple(
            CentreView(pile[-1] if pile else None, len(pile), owner)
            for pile, owner in zip(state.centres, state.centre_owners, strict=True)
        )
        finished = state.phase == OVER
        return DavaykaView(
            seat=seat,
            phase=state.phase,
            round=state.round_no,
            seats=tuple(seats),
            centres=centres,
            deadline=deadline,
            deadline_kind=kind,
            phase_deadline=phase_deadline,
            last_move=state.last_move,
            finished=finished,
            winner=state.winner,
            end_reason=state.end_reason if finished else None,
        )

    # -- the computer player -----------------------------------------------------------------

    def choose(self, state: DavaykaState, seat: int, rng: Random) -> Action:
        """Press Ready / «Давай-ка!» at once; in play prefer a move that uncovers a face-down
        card, then the longer pile, then one after which more of our other top cards fit, then
        at random. Only public information is used (never the face-down cards)."""
        if state.phase != PLAY:
            actions = self.legal_actions(state, seat)
            if not actions:
                raise IllegalAction(ERR_ILLEGAL)
            return actions[0]
        moves = _moves(state, seat)
        if not moves:
            raise IllegalAction(ERR_ILLEGAL)
        row = state.rows[seat]
        tops: list[Card | None] = [pile[-1] if pile else None for pile in state.centres]
        best = moves[0]
        best_key: tuple[int, int, int, float] | None = None
        for action in moves:
            pile = row[action.row_pile]
            after = list(tops)
            after[action.centre] = action.card
            follow = 0
            for i, other in enumerate(row):
                if i != action.row_pile and other:
                    follow += any(onto is not None and fits(other[-1], onto) for onto in after)
            key = (int(len(pile) > 1), len(pile), follow, rng.random())
            if best_key is None or key > best_key:
                best, best_key = action, key
        return Play(best.row_pile, best.centre, state.round_no)

    # -- results and codecs ----------------------------------------------------------------

    def outcome(self, state: DavaykaState) -> Outcome | None:
        if state.phase != OVER:
            return None
        if state.winner is None:
            return Outcome((1, 1))
        return Outcome((1, 2) if state.winner == 0 else (2, 1))

    def standings(self, state: DavaykaState) -> Outcome | None:
        """The outcome if the game stopped now: the rules' backstop ends applied to this state.

        Ranking: the round in progress (if any) ends as a stuck round does: fewer cards in
        the row wins it and puts his row under his stock, the other takes both centre piles
        and his row; equal rows, each takes his own centre pile and his row. Then, as after
        the 30th round, fewer cards in all wins and equal counts are a draw. Between rounds
        this is simply fewer cards in all. Barely begun: the first round is not complete.
        """
        if state.phase == OVER:
            return self.outcome(state)
        if state.round_no <= 1:
            return None
        cards, _ = _gathered(state, _fewer_row_cards(state))
        return Outcome(places_from_ranking([len(cards[0]), len(cards[1])]))

    def rematch_options(self, state: DavaykaState, options: Options) -> dict[str, Any]:
        """No dealer in this game: a rematch keeps the options unchanged."""
        return dict(options)

    def encode_action(self, action: Action) -> str:
        return encode_action(action)

    def decode_action(self, code: str) -> Action:
        return decode_action(code)

    def dump(self, state: DavaykaState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> DavaykaState:
        return load_state(data)


__all__ = [
    "ERROR_CODES",
    "EVENT_CODES",
    "DavaykaRules",
    "Flip",
    "Move",
    "Ready",
    "fits",
    "lay_out",
    "make_state",
]
