"""The Progression engine: deals, turns (play, then take), scoring and the match to a target.

Readings of the rules file where it is silent (each has a test):

- Each turn is two decisions, and each decision is its own window of ``turn_seconds``: the
  take window opens when the card is played. A timeout in the play phase plays the default
  card and takes from the draw pile; a timeout in the take phase takes from the draw pile.
- The backstop counts turns, not players: after three consecutive turns whose take was not from
  the draw pile, the next player may only take from the draw pile. A new deal resets the count.
- Cards are dealt one at a time, starting left of the dealer. The draw pile is never empty
  during a turn (the deal ends the moment its last card is taken), so a player can always play
  (a public stack takes any card of its suit) and always take.
- After a deal the state pauses in ``between_deals`` for ``BETWEEN_DEALS_SECONDS`` (20 s, not
  ``turn_seconds``) with the deal's score sheet. The next deal starts when the pause ends
  (``on_deadline``) or, at once, when every seat has pressed ``Next``: one quick player does not
  cut the sheet short for the others. Each press is kept per seat (``ready``) and emits
  ``progression.next``; a seat that has pressed is offered ``Next`` no more, and a second press
  is refused (``progression.already_ready``). The seats not yet ready are the acting seats, so a
  computer seat (or a person's seat on autopilot) presses at its own pace and counts as ready,
  while nobody is late in the pause: its deadline emits no timeout event.
  After the deal that decides the match the state goes straight to ``over`` and keeps the sheet.
- The match may go on past the target for ties: it ends only when some total has reached the
  target and one player alone has the highest total. Places follow the totals (equal totals
  share a place); the outcome's scores are the totals.
- Rematch: a new match whose first dealer is the player left of the last deal's dealer, as if
  the deal had simply passed on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from random import Random
from typing import Any

from bot.games.cards import SUITS, Card, Suit, parse_card, standard_deck
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
from bot.games.progression.ai import choose_action
from bot.games.progression.scoring import can_stack, card_value, stack_score
from bot.games.progression.state import (
    BACKSTOP_TURNS,
    DEFAULT_TARGET,
    DRAW,
    HAND_SIZE,
    NEXT,
    NOBODY_READY,
    PHASE_BETWEEN,
    PHASE_OVER,
    PHASE_PLAY,
    PHASE_TAKE,
    PHASES,
    SEATS,
    TARGETS,
    NextDeal,
    PlayCard,
    ProgressionAction,
    ProgressionState,
    ScoreSheet,
    SheetRow,
    Stacks,
    TakeCard,
)
from bot.games.progression.view import ProgressionView, deadline_of, make_view, places_of

DEFAULT_TURN_SECONDS = 60.0

_EMPTY_STACKS: Stacks = ((), (), (), ())
_SUIT_BY_LETTER = {suit.value: suit for suit in SUITS}

EV_DEAL_STARTED = "progression.deal_started"
EV_DEALT = "progression.dealt"
EV_PLAYED_OWN = "progression.played_own"
EV_PLAYED_PUBLIC = "progression.played_public"
EV_DREW = "progression.drew"
EV_DREW_CARD = "progression.drew_card"
EV_TOOK = "progression.took"
EV_MUST_DRAW = "progression.backstop"
EV_TIMEOUT = "progression.timeout"
EV_DEAL_ENDED = "progression.deal_ended"
EV_DEAL_SCORE = "progression.deal_score"
EV_TIE = "progression.tie"
EV_MATCH_WON = "progression.match_won"
EV_NEXT = "progression.next"

EVENT_CODES = (
    EV_DEAL_STARTED,
    EV_DEALT,
    EV_PLAYED_OWN,
    EV_PLAYED_PUBLIC,
    EV_DREW,
    EV_DREW_CARD,
    EV_TOOK,
    EV_MUST_DRAW,
    EV_TIMEOUT,
    EV_DEAL_ENDED,
    EV_DEAL_SCORE,
    EV_TIE,
    EV_MATCH_WON,
    EV_NEXT,
)

ERR_BAD_ACTION = "bad_action"
ERR_GAME_OVER = "progression.game_over"
ERR_NOT_YOUR_TURN = "progression.not_your_turn"
ERR_WRONG_PHASE = "progression.wrong_phase"
ERR_NOT_IN_HAND = "progression.not_in_hand"
ERR_CANNOT_STACK = "progression.cannot_stack"
ERR_EMPTY_STACK = "progression.empty_stack"
ERR_JUST_PLAYED = "progression.just_played"
ERR_MUST_DRAW = "progression.must_draw"
ERR_ALREADY_READY = "progression.already_ready"

ERROR_CODES = (
    ERR_BAD_ACTION,
    ERR_GAME_OVER,
    ERR_NOT_YOUR_TURN,
    ERR_WRONG_PHASE,
    ERR_NOT_IN_HAND,
    ERR_CANNOT_STACK,
    ERR_EMPTY_STACK,
    ERR_JUST_PLAYED,
    ERR_MUST_DRAW,
    ERR_ALREADY_READY,
)


def timeout_card(hand: Sequence[Card]) -> Card:
    """The card a timed-out player plays: lowest value, then rank 2 … A, then suit ♠ ♥ ♦ ♣."""
    return min(hand, key=lambda c: (card_value(c), c.rank, _suit_index(c)))


def _suit_index(c: Card) -> int:
    suit = c.suit
    assert suit is not None  # Progression has no jokers
    return suit.order


def _replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _without(hand: tuple[Card, ...], c: Card) -> tuple[Card, ...]:
    i = hand.index(c)
    return hand[:i] + hand[i + 1 :]


def build_state(
    hands: Sequence[Sequence[Card]],
    *,
    stacks: Sequence[Sequence[Sequence[Card]]] | None = None,
    public: Sequence[Sequence[Card]] | None = None,
    draw: Sequence[Card] | None = None,
    to_move: int = 0,
    dealer: int | None = None,
    phase: str = PHASE_PLAY,
    just_played: Card | None = None,
    played_public: bool = False,
    no_draw_turns: int = 0,
    totals: Sequence[int] = (0, 0, 0),
    target: int = DEFAULT_TARGET,
    deal: int = 1,
    turn_seconds: float = DEFAULT_TURN_SECONDS,
    opened: float = 0.0,
    sheet: ScoreSheet | None = None,
    ready: Sequence[bool] = NOBODY_READY,
) -> ProgressionState:
    """A position from explicit cards (for tests). Stacks are bottom to top, in suit order
    ♠ ♥ ♦ ♣; ``draw`` lists the pile bottom to top, and by default holds every card not placed
    elsewhere (in deck order)."""
    own = tuple(
        tuple(tuple(s) for s in seat_stacks) for seat_stacks in (stacks or [_EMPTY_STACKS] * 3)
    )
    pub = tuple(tuple(s) for s in (public or _EMPTY_STACKS))
    hands_t = tuple(tuple(h) for h in hands)
    if draw is None:
        used = {c for h in hands_t for c in h}
        used.update(c for seat_stacks in own for s in seat_stacks for c in s)
        used.update(c for s in pub for c in s)
        draw = [c for c in standard_deck() if c not in used]
    if dealer is None:
        dealer = (to_move - 1) % SEATS
    if len(hands_t) != SEATS or len(own) != SEATS or len(pub) != 4:
        raise ValueError("Progression needs three hands, three stack sets and four public stacks")
    if any(len(s) != 4 for s in own) or phase not in PHASES or len(ready) != SEATS:
        raise ValueError("bad stacks, phase or ready")
    return ProgressionState(
        target=target,
        turn_seconds=turn_seconds,
        deal=deal,
        dealer=dealer,
        phase=phase,
        to_move=to_move,
        hands=hands_t,
        stacks=own,
        public=pub,
        draw=tuple(draw),
        just_played=just_played,
        played_public=played_public,
        no_draw_turns=no_draw_turns,
        totals=tuple(totals),
        opened=opened,
        sheet=sheet,
        ready=tuple(ready),
    )


def _start_deal(
    *,
    target: int,
    turn_seconds: float,
    deal: int,
    dealer: int,
    totals: tuple[int, ...],
    sheet: ScoreSheet | None,
    rng: Random,
    now: float,
) -> Step[ProgressionState]:
    deck = standard_deck()
    rng.shuffle(deck)
    hands: list[list[Card]] = [[], [], []]
    dealt = HAND_SIZE * SEATS
    for i in range(dealt):
        hands[(dealer + 1 + i) % SEATS].append(deck[i])
    state = ProgressionState(
        target=target,
        turn_seconds=turn_seconds,
        deal=deal,
        dealer=dealer,
        phase=PHASE_PLAY,
        to_move=(dealer + 1) % SEATS,
        hands=tuple(tuple(h) for h in hands),
        stacks=(_EMPTY_STACKS,) * SEATS,
        public=_EMPTY_STACKS,
        draw=tuple(deck[dealt:]),
        just_played=None,
        played_public=False,
        no_draw_turns=0,
        totals=totals,
        opened=now,
        sheet=sheet,
    )
    events = [Event(EV_DEAL_STARTED, None, {"deal": deal, "dealer_seat": dealer})]
    events.extend(
        Event(EV_DEALT, seat, {"cards": state.hands[seat]}, only_seat=seat)
        for seat in range(SEATS)
    )
    return Step(state, tuple(events))


def _next_deal(state: ProgressionState, rng: Random, now: float) -> Step[ProgressionState]:
    return _start_deal(
        target=state.target,
        turn_seconds=state.turn_seconds,
        deal=state.deal + 1,
        dealer=(state.dealer + 1) % SEATS,
        totals=state.totals,
        sheet=state.sheet,
        rng=rng,
        now=now,
    )


def _play(
    state: ProgressionState, seat: int, c: Card, public: bool, now: float
) -> Step[ProgressionState]:
    hand = state.hands[seat]
    if c not in hand:
        raise IllegalAction(ERR_NOT_IN_HAND)
    index = _suit_index(c)
    stacks = state.stacks
    pub = state.public
    if public:
        pub = _replace_at(pub, index, pub[index] + (c,))
        code = EV_PLAYED_PUBLIC
    else:
        own = stacks[seat]
        if not can_stack(own[index], c):
            raise IllegalAction(ERR_CANNOT_STACK)
        stacks = _replace_at(stacks, seat, _replace_at(own, index, own[index] + (c,)))
        code = EV_PLAYED_OWN
    new = ProgressionState(
        target=state.target,
        turn_seconds=state.turn_seconds,
        deal=state.deal,
        dealer=state.dealer,
        phase=PHASE_TAKE,
        to_move=seat,
        hands=_replace_at(state.hands, seat, _without(hand, c)),
        stacks=stacks,
        public=pub,
        draw=state.draw,
        just_played=c,
        played_public=public,
        no_draw_turns=state.no_draw_turns,
        totals=state.totals,
        opened=now,
        sheet=state.sheet,
    )
    return Step(new, (Event(code, seat, {"card": c}),))


def _take(
    state: ProgressionState, seat: int, suit: Suit | None, now: float
) -> Step[ProgressionState]:
    pub = state.public
    draw = state.draw
    if suit is None:
        taken = draw[-1]
        draw = draw[:-1]
        no_draw_turns = 0
        events = [
            Event(EV_DREW, seat, {"left": len(draw)}),
            Event(EV_DREW_CARD, seat, {"card": taken}, only_seat=seat),
        ]
    else:
        if state.no_draw_turns >= BACKSTOP_TURNS:
            raise IllegalAction(ERR_MUST_DRAW)
        index = suit.order
        if not pub[index]:
            raise IllegalAction(ERR_EMPTY_STACK)
        if (
            state.played_public
            and state.just_played is not None
            and (state.just_played.suit is suit)
        ):
            raise IllegalAction(ERR_JUST_PLAYED)
        taken = pub[index][-1]
        pub = _replace_at(pub, index, pub[index][:-1])
        no_draw_turns = state.no_draw_turns + 1
        events = [Event(EV_TOOK, seat, {"card": taken})]
    hands = _replace_at(state.hands, seat, state.hands[seat] + (taken,))
    if not draw:
        return _end_deal(state, hands, pub, now, events)
    to_move = (seat + 1) % SEATS
    if no_draw_turns >= BACKSTOP_TURNS:
        events.append(Event(EV_MUST_DRAW, to_move))
    new = ProgressionState(
        target=state.target,
        turn_seconds=state.turn_seconds,
        deal=state.deal,
        dealer=state.dealer,
        phase=PHASE_PLAY,
        to_move=to_move,
        hands=hands,
        stacks=state.stacks,
        public=pub,
        draw=draw,
        just_played=None,
        played_public=False,
        no_draw_turns=no_draw_turns,
        totals=state.totals,
        opened=now,
        sheet=state.sheet,
    )
    return Step(new, tuple(events))


def score_sheet(state: ProgressionState) -> ScoreSheet:
    """The score sheet of the deal as it stands (final once the deal has ended)."""
    rows = []
    for seat in range(SEATS):
        stacks = state.stacks[seat]
        scores = tuple(stack_score(s) for s in stacks)
        deal_score = sum(scores)
        rows.append(SheetRow(stacks, scores, deal_score, state.totals[seat] + deal_score))
    return ScoreSheet(state.deal, state.dealer, tuple(rows))


def _end_deal(
    state: ProgressionState,
    hands: tuple[tuple[Card, ...], ...],
    pub: Stacks,
    now: float,
    events: list[Event],
) -> Step[ProgressionState]:
    sheet = score_sheet(state)
    totals = tuple(row.total for row in sheet.rows)
    events.append(Event(EV_DEAL_ENDED, None, {"deal": state.deal}))
    events.extend(
        Event(EV_DEAL_SCORE, seat, {"score": row.deal_score, "total": row.total})
        for seat, row in enumerate(sheet.rows)
    )
    best = max(totals)
    phase = PHASE_BETWEEN
    if best >= state.target:
        leaders = [seat for seat, total in enumerate(totals) if total == best]
        if len(leaders) == 1:
            phase = PHASE_OVER
            events.append(Event(EV_MATCH_WON, leaders[0], {"total": best}))
        else:
            events.append(Event(EV_TIE, None, {"total": best}))
    new = ProgressionState(
        target=state.target,
        turn_seconds=state.turn_seconds,
        deal=state.deal,
        dealer=state.dealer,
        phase=phase,
        to_move=state.to_move,
        hands=hands,
        stacks=state.stacks,
        public=pub,
        draw=(),
        just_played=None,
        played_public=False,
        no_draw_turns=0,
        totals=totals,
        opened=now,
        sheet=sheet,
        ready=NOBODY_READY,  # every pause starts with nobody ready
    )
    return Step(new, tuple(events))


class ProgressionRules:
    """Progression for exactly three players; a match of deals up to a target score."""

    key = "progression"
    min_players = SEATS
    max_players = SEATS
    options = (OptionSpec("target", TARGETS, DEFAULT_TARGET),)
    #: Codes that mean the same whatever the game's version (Next: "I am ready"), so that the
    #: computers' own presses between deals do not make a person's Next button out of date:
    #: the services skip their stale-version check for these.
    any_version_codes = frozenset({"n"})

    def new_game(self, seats: int, options: Options, rng: Random, now: float) -> ProgressionState:
        if seats != SEATS:
            raise ValueError("Progression is for exactly three players")
        target = options.get("target", DEFAULT_TARGET)
        if not isinstance(target, int) or isinstance(target, bool) or target <= 0:
            target = DEFAULT_TARGET
        turn_seconds = options.get(TURN_SECONDS) or DEFAULT_TURN_SECONDS
        dealer = options.get(DEALER)
        if not isinstance(dealer, int) or not 0 <= dealer < SEATS:
            dealer = rng.randrange(SEATS)
        return _start_deal(
            target=target,
            turn_seconds=float(turn_seconds),
            deal=1,
            dealer=dealer,
            totals=(0,) * SEATS,
            sheet=None,
            rng=rng,
            now=now,
        ).state

    def acting_seats(self, state: ProgressionState) -> tuple[int, ...]:
        if state.phase in (PHASE_PLAY, PHASE_TAKE):
            return (state.to_move,)
        if state.phase == PHASE_BETWEEN:
            # The deal waits for the seats not yet ready; a computer seat is one of them until
            # it presses Next itself (it counts as ready: its press only marks its seat).
            return tuple(seat for seat in range(SEATS) if not state.ready[seat])
        return ()

    def acting_since(self, state: ProgressionState, seat: int) -> float:
        """Since when a seat has had its decision: since its window opened — its turn, or the
        pause between deals, where every computer is then ready a moment after the sheet
        came, together rather than one after the other."""
        return state.opened

    def legal_actions(self, state: ProgressionState, seat: int) -> list[ProgressionAction]:
        phase = state.phase
        if phase == PHASE_BETWEEN:
            return [NEXT] if 0 <= seat < SEATS and not state.ready[seat] else []
        if seat != state.to_move:
            return []
        if phase == PHASE_PLAY:
            actions: list[ProgressionAction] = []
            own = state.stacks[seat]
            for c in state.hands[seat]:
                if can_stack(own[_suit_index(c)], c):
                    actions.append(PlayCard(c, False))
                actions.append(PlayCard(c, True))
            return actions
        if phase == PHASE_TAKE:
            takes: list[ProgressionAction] = [DRAW]
            if state.no_draw_turns < BACKSTOP_TURNS:
                just = state.just_played
                # The card just played onto a public stack is its top: not takeable this turn.
                blocked = just.suit if state.played_public and just is not None else None
                takes.extend(
                    TakeCard(suit)
                    for suit, stack in zip(SUITS, state.public, strict=True)
                    if stack and suit is not blocked
                )
            return takes
        return []

    def apply(
        self,
        state: ProgressionState,
        seat: int,
        action: ProgressionAction,
        rng: Random,
        now: float,
    ) -> Step[ProgressionState]:
        phase = state.phase
        if phase == PHASE_OVER:
            raise IllegalAction(ERR_GAME_OVER)
        if isinstance(action, NextDeal):
            if phase != PHASE_BETWEEN:
                raise IllegalAction(ERR_WRONG_PHASE)
            if not 0 <= seat < SEATS:
                raise IllegalAction(ERR_NOT_YOUR_TURN)
            if state.ready[seat]:
                raise IllegalAction(ERR_ALREADY_READY)
            ready = _replace_at(state.ready, seat, True)
            pressed = Event(EV_NEXT, seat)
            if not all(ready):
                return Step(replace(state, ready=ready), (pressed,))
            step = _next_deal(state, rng, now)
            return Step(step.state, (pressed, *step.events))
        if phase == PHASE_BETWEEN:
            raise IllegalAction(ERR_WRONG_PHASE)
        if seat != state.to_move:
            raise IllegalAction(ERR_NOT_YOUR_TURN)
        if isinstance(action, PlayCard):
            if phase != PHASE_PLAY:
                raise IllegalAction(ERR_WRONG_PHASE)
            return _play(state, seat, action.card, action.public, now)
        if isinstance(action, TakeCard):
            if phase != PHASE_TAKE:
                raise IllegalAction(ERR_WRONG_PHASE)
            return _take(state, seat, action.suit, now)
        raise IllegalAction(ERR_BAD_ACTION)

    def next_deadline(self, state: ProgressionState) -> float | None:
        return deadline_of(state)

    def on_deadline(
        self, state: ProgressionState, rng: Random, now: float
    ) -> Step[ProgressionState]:
        phase = state.phase
        if phase == PHASE_BETWEEN:
            return _next_deal(state, rng, now)
        if phase == PHASE_OVER:
            return Step(state, ())
        seat = state.to_move
        events: list[Event] = [Event(EV_TIMEOUT, seat)]
        if phase == PHASE_PLAY:
            step = _play(state, seat, timeout_card(state.hands[seat]), True, now)
            events.extend(step.events)
            state = step.state
        step = _take(state, seat, None, now)
        events.extend(step.events)
        return Step(step.state, tuple(events))

    def view(self, state: ProgressionState, seat: int | None) -> ProgressionView:
        return make_view(state, seat)

    def choose(self, state: ProgressionState, seat: int, rng: Random) -> ProgressionAction:
        return choose_action(state, seat, rng)

    def outcome(self, state: ProgressionState) -> Outcome | None:
        places = places_of(state)
        if places is None:
            return None
        return Outcome(places, tuple(float(total) for total in state.totals))

    def standings(self, state: ProgressionState) -> Outcome | None:
        """The outcome if the match stopped now: the totals of the deals completed so far.

        Ranking: the match totals, higher first, equal totals sharing a place (as at the end
        of a match); the scores are those totals. The deal in progress does not count: its
        stacks are only scored when it ends (a stack of face cards waiting for its numbers
        stands at -10 per card until then), and cards in hand never count. Barely begun: the
        first deal is not complete, so nobody has a score yet.
        """
        if state.phase == PHASE_OVER:
            return self.outcome(state)
        if state.deal <= 1 and state.phase != PHASE_BETWEEN:
            return None
        places = places_from_ranking([-total for total in state.totals])
        return Outcome(places, tuple(float(total) for total in state.totals))

    def rematch_options(self, state: ProgressionState, options: Options) -> dict[str, Any]:
        result = dict(options)
        result[DEALER] = (state.dealer + 1) % SEATS
        return result

    def encode_action(self, action: ProgressionAction) -> str:
        if isinstance(action, PlayCard):
            return ("u" if action.public else "m") + action.card.code
        if isinstance(action, TakeCard):
            return "d" if action.suit is None else "t" + action.suit.value
        return "n"

    def decode_action(self, code: str) -> ProgressionAction:
        if code == "d":
            return DRAW
        if code == "n":
            return NEXT
        if len(code) == 2 and code[0] == "t" and code[1] in _SUIT_BY_LETTER:
            return TakeCard(_SUIT_BY_LETTER[code[1]])
        if len(code) == 3 and code[0] in "mu":
            try:
                c = parse_card(code[1:])
            except ValueError:
                raise IllegalAction(ERR_BAD_ACTION) from None
            if c.suit is not None:
                return PlayCard(c, code[0] == "u")
        raise IllegalAction(ERR_BAD_ACTION)

    def dump(self, state: ProgressionState) -> dict[str, Any]:
        return {
            "target": state.target,
            "turn_seconds": state.turn_seconds,
            "deal": state.deal,
            "dealer": state.dealer,
            "phase": state.phase,
            "to_move": state.to_move,
            "hands": [[c.code for c in h] for h in state.hands],
            "stacks": [[[c.code for c in s] for s in stacks] for stacks in state.stacks],
            "public": [[c.code for c in s] for s in state.public],
            "draw": [c.code for c in state.draw],
            "just_played": state.just_played.code if state.just_played is not None else None,
            "played_public": state.played_public,
            "no_draw_turns": state.no_draw_turns,
            "totals": list(state.totals),
            "opened": state.opened,
            "sheet": _dump_sheet(state.sheet) if state.sheet is not None else None,
            "ready": list(state.ready),
        }

    def load(self, data: Mapping[str, Any]) -> ProgressionState:
        just = data["just_played"]
        sheet = data["sheet"]
        # Saved before presses were kept per seat: nobody has pressed yet.
        ready = data.get("ready")
        return ProgressionState(
            target=int(data["target"]),
            turn_seconds=float(data["turn_seconds"]),
            deal=int(data["deal"]),
            dealer=int(data["dealer"]),
            phase=str(data["phase"]),
            to_move=int(data["to_move"]),
            hands=tuple(_cards(h) for h in data["hands"]),
            stacks=tuple(_stacks(s) for s in data["stacks"]),
            public=_stacks(data["public"]),
            draw=_cards(data["draw"]),
            just_played=parse_card(just) if just is not None else None,
            played_public=bool(data["played_public"]),
            no_draw_turns=int(data["no_draw_turns"]),
            totals=tuple(int(t) for t in data["totals"]),
            opened=float(data["opened"]),
            sheet=_load_sheet(sheet) if sheet is not None else None,
            ready=NOBODY_READY if ready is None else tuple(bool(r) for r in ready),
        )


def _cards(codes: Sequence[str]) -> tuple[Card, ...]:
    return tuple(parse_card(code) for code in codes)


def _stacks(data: Sequence[Sequence[str]]) -> Stacks:
    return tuple(_cards(s) for s in data)


def _dump_sheet(sheet: ScoreSheet) -> dict[str, Any]:
    return {
        "deal": sheet.deal,
        "dealer": sheet.dealer,
        "rows": [
            {
                "stacks": [[c.code for c in s] for s in row.stacks],
                "stack_scores": list(row.stack_scores),
                "deal_score": row.deal_score,
                "total": row.total,
            }
            for row in sheet.rows
        ],
    }


def _load_sheet(data: Mapping[str, Any]) -> ScoreSheet:
    return ScoreSheet(
        deal=int(data["deal"]),
        dealer=int(data["dealer"]),
        rows=tuple(
            SheetRow(
                stacks=_stacks(row["stacks"]),
                stack_scores=tuple(int(s) for s in row["stack_scores"]),
                deal_score=int(row["deal_score"]),
                total=int(row["total"]),
            )
            for row in data["rows"]
        ),
    )
