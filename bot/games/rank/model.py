"""Rank's data: the rank ring, actions and their codes, the state, the view, event and error codes.

Everything here is plain data plus tiny pure helpers; the turn logic lives in
:mod:`bot.games.rank.rules` and the computer player in :mod:`bot.games.rank.computer`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.games.cards import ACE, JOKER, KING, RANK_CODES, RANKS, SUITS, Card, card
from bot.games.engine import places_from_ranking

# Phases of the turn (also shown in the view).
PLAY: Final = "play"
DRAWN: Final = "drawn"
FOLLOW: Final = "follow"
OVER: Final = "over"
PHASES: Final = (PLAY, DRAWN, FOLLOW, OVER)

# How a finished game ended (``RankState.ended_by``).
ENDED_LOSER: Final = "loser"
ENDED_STALLED: Final = "stalled"
ENDED_ROUND_LIMIT: Final = "round_limit"

HAND_SIZE: Final = 5
#: ``round_limit`` 0: the limit that makes a game last about ten minutes at a person's pace
#: (a turn about 4 s), by the number of players. Played out, games run far longer — a median
#: of 110–430 rounds (``python -m bench.rank_lengths``) — so the limit is part of the game.
AUTO_ROUND_LIMIT: Final = 0
AUTO_ROUND_LIMITS: Final = {2: 75, 3: 50, 4: 40, 5: 30, 6: 25, 7: 20, 8: 20, 9: 15, 10: 15}
DEFAULT_ROUND_LIMIT: Final = AUTO_ROUND_LIMIT
ROUND_LIMITS: Final = (AUTO_ROUND_LIMIT, 25, 50, 100, 200)
DEFAULT_TURN_SECONDS: Final = 60

# --- the rank ring: A 2 3 … 10 J Q K and round to A again --------------------------------

#: The ring in display order; also the order of the 13 "name a rank" buttons.
RING: Final[tuple[int, ...]] = (ACE, *range(2, KING + 1))


def rank_up(rank: int) -> int:
    """The rank one step above on the ring (K → A, A → 2)."""
    if rank == ACE:
        return 2
    if rank == KING:
        return ACE
    return rank + 1


def rank_down(rank: int) -> int:
    """The rank one step below on the ring (A → K, 2 → A)."""
    if rank == ACE:
        return KING
    if rank == 2:
        return ACE
    return rank - 1


#: For each natural rank, the two ranks adjacent to it on the ring.
ADJACENT: Final[dict[int, frozenset[int]]] = {
    rank: frozenset((rank_down(rank), rank_up(rank))) for rank in RANKS
}


def adjacent(a: int, b: int) -> bool:
    """Whether two ranks are one step apart on the ring (jokers are adjacent to nothing)."""
    neighbours = ADJACENT.get(a)
    return neighbours is not None and b in neighbours


def _display_index(c: Card) -> int:
    if c.suit is None:
        return 1000
    ring_position = 1 if c.rank == ACE else c.rank
    return ring_position * 4 + c.suit.order


#: Sort key for hands: A 2 … K, then suit ♠ ♥ ♦ ♣, jokers last.
HAND_ORDER: Final[dict[Card, int]] = {
    c: _display_index(c) for c in [card(r, s) for s in SUITS for r in RANKS] + [JOKER]
}


def sort_hand(cards: list[Card] | tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=HAND_ORDER.__getitem__))


# --- actions -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play:
    """Play a natural card: adjacent, an ace escape, the drawn card or the joker's follow-up."""

    card: Card


@dataclass(frozen=True, slots=True)
class PlayJoker:
    """Play a joker from hand (or the drawn joker) and name ``rank``."""

    rank: int


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card from the stock (reshuffling the discard pile when the stock is empty)."""


@dataclass(frozen=True, slots=True)
class Keep:
    """After drawing a playable card: keep it and end the turn."""


@dataclass(frozen=True, slots=True)
class EndTurn:
    """After a joker: play no follow-up card."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Nothing is possible: no adjacent card, no ace, no joker, nothing to draw."""


RankAction = Play | PlayJoker | Draw | Keep | EndTurn | Pass

# Interned action objects: legal_actions hands these out, decode_action returns them.
PLAYS: Final[dict[Card, Play]] = {c: Play(c) for c in HAND_ORDER if not c.is_joker}
JOKER_PLAYS: Final[dict[int, PlayJoker]] = {rank: PlayJoker(rank) for rank in RING}
DRAW: Final = Draw()
KEEP: Final = Keep()
END_TURN: Final = EndTurn()
PASS: Final = Pass()


def encode_action(action: RankAction) -> str:
    if isinstance(action, Play):
        return "p" + action.card.code
    if isinstance(action, PlayJoker):
        return "j" + RANK_CODES[action.rank]
    if isinstance(action, Draw):
        return "d"
    if isinstance(action, Keep):
        return "k"
    if isinstance(action, EndTurn):
        return "e"
    return "x"


#: Every valid action code, so decoding is one total dictionary look-up.
_DECODE: Final[dict[str, RankAction]] = {
    **{encode_action(a): a for a in PLAYS.values()},
    **{encode_action(a): a for a in JOKER_PLAYS.values()},
    "d": DRAW,
    "k": KEEP,
    "e": END_TURN,
    "x": PASS,
}


def decode_action(code: str) -> RankAction | None:
    """The action for a code, or ``None`` for anything that is not one."""
    try:
        return _DECODE.get(code)
    except TypeError:  # unhashable garbage
        return None


# --- state and view ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankState:
    """The whole game. Build one by hand in tests: every field but the cards has a default.

    ``stock`` and ``discard`` keep their top card last. Hands are kept sorted in
    :data:`HAND_ORDER`. During phase ``drawn`` the drawn card is already in the hand and
    ``drawn`` says which one it is. ``named_rank`` is set only while a joker is on top.
    ``had_turn`` is a bit mask of the seats that have had their turn this round; ``passes``
    counts consecutive passes (the stalled-game backstop). ``opened`` is when the current
    decision window opened.
    """

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    discard: tuple[Card, ...]
    turn: int | None = 0
    phase: str = PLAY
    named_rank: int | None = None
    drawn: Card | None = None
    out: tuple[int, ...] = ()
    pending: int | None = None
    round: int = 1
    #: A limit in rounds (a new game resolves the option's 0 to ``AUTO_ROUND_LIMITS``); a
    #: state built by hand (tests, tools) gets the longest choice.
    round_limit: int = max(ROUND_LIMITS)
    dealer: int = 0
    had_turn: int = 0
    passes: int = 0
    opened: float = 0.0
    turn_seconds: float = DEFAULT_TURN_SECONDS
    loser: int | None = None
    ended_by: str | None = None

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    @property
    def top(self) -> Card | None:
        return self.discard[-1] if self.discard else None

    @property
    def target_rank(self) -> int:
        """The rank the next natural card must be adjacent to."""
        if self.named_rank is not None:
            return self.named_rank
        top = self.discard[-1]
        # A joker on top always carries a named rank; ACE is only a safe fallback.
        return top.rank if not top.is_joker else ACE


@dataclass(frozen=True, slots=True)
class RankView:
    """What one seat (or, with ``seat=None``, the public table) may see."""

    seat: int | None
    players: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    top: Card | None
    named_rank: int | None
    stock_size: int
    discard_size: int
    turn: int | None
    phase: str
    drawn: Card | None
    out: tuple[int, ...]
    pending: int | None
    round: int
    round_limit: int
    dealer: int
    deadline: float | None
    finished: bool
    loser: int | None

    def race(self) -> tuple[int, ...]:
        """Each seat's place if the game stopped now (see :func:`race_places`)."""
        return race_places(self.out, self.pending, self.hand_sizes)


def race_places(
    out: Sequence[int], pending: int | None, hand_sizes: Sequence[int]
) -> tuple[int, ...]:
    """Each seat's place if the game stopped now — the rules' backstop end, and the race the
    round limit makes of a long game: players out keep their places in the order they went
    out, a pending exit standing (after those out); those still holding cards follow, fewer
    cards first, equal counts sharing a place."""
    gone = (*out, pending) if pending is not None and pending not in out else tuple(out)
    keys = [
        (0, gone.index(seat)) if seat in gone else (1, size)
        for seat, size in enumerate(hand_sizes)
    ]
    return places_from_ranking(keys)


# --- event and error codes ---------------------------------------------------------------

EV_PLAYED: Final = "rank.played"
EV_JOKER: Final = "rank.joker"
EV_DREW: Final = "rank.drew"
EV_DREW_CARD: Final = "rank.drew_card"
EV_KEPT: Final = "rank.kept"
EV_ENDED_TURN: Final = "rank.ended_turn"
EV_PASSED: Final = "rank.passed"
EV_RESHUFFLED: Final = "rank.reshuffled"
EV_LAST_CARD: Final = "rank.last_card"
EV_RETURNED: Final = "rank.returned"
EV_RETURNED_CARDS: Final = "rank.returned_cards"
EV_OUT: Final = "rank.out"
EV_TIMEOUT: Final = "rank.timeout"
EV_LOST: Final = "rank.lost"
EV_STALLED: Final = "rank.stalled"
EV_ROUND_LIMIT: Final = "rank.round_limit"
EV_BACKSTOP: Final = "rank.backstop"

EVENT_CODES: Final = (
    EV_PLAYED,
    EV_JOKER,
    EV_DREW,
    EV_DREW_CARD,
    EV_KEPT,
    EV_ENDED_TURN,
    EV_PASSED,
    EV_RESHUFFLED,
    EV_LAST_CARD,
    EV_RETURNED,
    EV_RETURNED_CARDS,
    EV_OUT,
    EV_TIMEOUT,
    EV_LOST,
    EV_STALLED,
    EV_ROUND_LIMIT,
    EV_BACKSTOP,
)

ERR_BAD_ACTION: Final = "bad_action"
ERR_GAME_OVER: Final = "rank.game_over"
ERR_NOT_YOUR_TURN: Final = "rank.not_your_turn"
ERR_ILLEGAL_CARD: Final = "rank.illegal_card"
ERR_MUST_PLAY: Final = "rank.must_play"
ERR_NO_JOKER: Final = "rank.no_joker"
ERR_PLAY_DRAWN: Final = "rank.play_drawn_card"
ERR_CANNOT_DRAW: Final = "rank.cannot_draw"
ERR_CANNOT_PASS: Final = "rank.cannot_pass"
ERR_WRONG_PHASE: Final = "rank.wrong_phase"

ERROR_CODES: Final = (
    ERR_BAD_ACTION,
    ERR_GAME_OVER,
    ERR_NOT_YOUR_TURN,
    ERR_ILLEGAL_CARD,
    ERR_MUST_PLAY,
    ERR_NO_JOKER,
    ERR_PLAY_DRAWN,
    ERR_CANNOT_DRAW,
    ERR_CANNOT_PASS,
    ERR_WRONG_PHASE,
)
