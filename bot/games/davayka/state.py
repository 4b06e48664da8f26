"""Davay-ka! data: the game state, the actions, the views and their codecs.

Everything here is a frozen dataclass of tuples of interned cards, so states compare cheaply
and are safe to share between steps. Piles are tuples with a fixed orientation:

* a row pile and a centre pile run bottom → top (``pile[-1]`` is the face-up top card);
* a stock runs top → bottom (``stock[0]`` is flipped next), so turning a centre pile over as
  a whole into a stock keeps the tuple as it is: its bottom card becomes the stock's top.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.games.cards import Card, parse_card
from bot.games.engine import IllegalAction

Pile = tuple[Card, ...]
#: A player's four row piles, left to right.
Row = tuple[Pile, ...]

READY: Final = "ready"
PLAY: Final = "play"
STALL: Final = "stall"
OVER: Final = "over"
PHASES: Final = (READY, PLAY, STALL, OVER)


@dataclass(frozen=True, slots=True)
class Move:
    """Put the top card of row pile ``row_pile`` (0–3) on centre pile ``centre`` (0–1).

    The card is part of the action: it is what the player saw when he pressed, so a press
    that arrives after the pile or the centre changed can be told apart ("too late").
    """

    row_pile: int
    card: Card
    centre: int


@dataclass(frozen=True, slots=True)
class Play:
    """Play the top card of my row pile ``row_pile`` (0–3), whatever it is when the press
    arrives: a player's row piles change only by his own moves, so "my pile 2" still means
    the card he knows is there (his panel, or the answer to his last press, showed it).

    It goes onto centre pile ``centre`` if it fits there, else wherever it fits (the left
    pile first); ``None``: no preference. ``round_no`` is the round of the panel it was
    pressed on: a press from an earlier round is too late, whatever the pile holds now.
    """

    row_pile: int
    centre: int | None
    round_no: int


@dataclass(frozen=True, slots=True)
class Ready:
    """The player is ready for the round to start."""


@dataclass(frozen=True, slots=True)
class Flip:
    """The «Давай-ка!» press during a stall window."""


Action = Move | Play | Ready | Flip
READY_ACTION: Final = Ready()
FLIP_ACTION: Final = Flip()


@dataclass(frozen=True, slots=True)
class LastMove:
    """The latest row card played this round (cleared by every flip of stock cards)."""

    seat: int
    row_pile: int
    card: Card
    centre: int
    auto: bool


@dataclass(frozen=True, slots=True)
class DavaykaState:
    """The whole game. Per-seat tuples are indexed by seat (0, 1)."""

    rows: tuple[Row, ...]
    stocks: tuple[Pile, ...]
    #: One or two centre piles (none in phase "ready" and once the game is over).
    centres: tuple[Pile, ...]
    #: The seat that flips onto each centre pile at a stall (and recycles it).
    centre_owners: tuple[int, ...]
    phase: str
    round_no: int
    rounds_won: tuple[int, ...]
    #: Ready pressed (phase "ready") or «Давай-ка!» pressed (phase "stall"), per seat.
    pressed: tuple[bool, ...]
    #: When the countdown (phase "ready") or the stall window (phase "stall") opened.
    opened: float
    #: Per seat: since when he has been idle with a move available (phase "play").
    idle_since: tuple[float, ...]
    #: Per seat: the forfeit clock's start — when he last pressed anything that was accepted,
    #: moved on by every stretch of time in which he had nothing to press.
    last_press: tuple[float, ...]
    #: Per seat: consecutive recycles of his stock with no row card played in between.
    recycles: tuple[int, ...]
    last_move: LastMove | None
    winner: int | None
    #: "" while the game runs; then "cards", "rounds" or "forfeit".
    end_reason: str
    countdown: float
    idle_seconds: float
    forfeit_seconds: float
    #: Per seat: since when he has had nothing to press (his forfeit clock stands still);
    #: ``None`` while he may act (or before the clock was first stopped).
    paused: tuple[float | None, ...] = (None, None)


@dataclass(frozen=True, slots=True)
class RowPileView:
    """One row pile as everybody sees it: the face-up top card and how many lie below."""

    top: Card | None
    hidden: int


@dataclass(frozen=True, slots=True)
class CentreView:
    top: Card | None
    size: int
    owner: int


@dataclass(frozen=True, slots=True)
class SeatView:
    piles: tuple[RowPileView, ...]
    row_cards: int
    stock: int
    cards: int
    rounds_won: int
    pressed: bool
    can_move: bool
    recycles: int
    idle_at: float | None
    forfeit_at: float | None


@dataclass(frozen=True, slots=True)
class DavaykaView:
    seat: int | None
    phase: str
    round: int
    seats: tuple[SeatView, ...]
    centres: tuple[CentreView, ...]
    deadline: float | None
    deadline_kind: str | None
    phase_deadline: float | None
    last_move: LastMove | None
    finished: bool
    winner: int | None
    end_reason: str | None


# --- action codes -------------------------------------------------------------------------


def encode_action(action: Action) -> str:
    if isinstance(action, Play):
        centre = "x" if action.centre is None else action.centre
        return f"p{action.row_pile}{centre}{action.round_no}"
    if isinstance(action, Move):
        return f"m{action.row_pile}{action.card.code}{action.centre}"
    if isinstance(action, Ready):
        return "r"
    return "f"


_PILE_DIGITS: Final = {"0": 0, "1": 1, "2": 2, "3": 3}
_CENTRE_DIGITS: Final = {"0": 0, "1": 1}
#: ``p<pile><centre or x><round>``: the round has no leading zero and at most two digits.
_PLAY: Final = re.compile(r"p([0-3])([01x])([1-9][0-9]?)")


def decode_action(code: str) -> Action:
    if not isinstance(code, str):
        raise IllegalAction("bad_action")
    if code == "r":
        return READY_ACTION
    if code == "f":
        return FLIP_ACTION
    play = _PLAY.fullmatch(code)
    if play is not None:
        pile, centre, round_no = play.groups()
        return Play(int(pile), None if centre == "x" else int(centre), int(round_no))
    # ``m<pile><card><centre>``: a panel drawn before presses named piles only.
    if len(code) == 5 and code[0] == "m":
        pile = _PILE_DIGITS.get(code[1])
        centre = _CENTRE_DIGITS.get(code[4])
        if pile is not None and centre is not None:
            try:
                card = parse_card(code[2:4])
            except ValueError:
                card = None
            if card is not None and not card.is_joker:
                return Move(pile, card, centre)
    raise IllegalAction("bad_action")


# --- dump / load ----------------------------------------------------------------------------


def _codes(pile: Pile) -> list[str]:
    return [c.code for c in pile]


def _pile(codes: Any) -> Pile:
    return tuple(parse_card(code) for code in codes)


def dump_state(state: DavaykaState) -> dict[str, Any]:
    last = state.last_move
    return {
        "rows": [[_codes(pile) for pile in row] for row in state.rows],
        "stocks": [_codes(stock) for stock in state.stocks],
        "centres": [_codes(pile) for pile in state.centres],
        "centre_owners": list(state.centre_owners),
        "phase": state.phase,
        "round_no": state.round_no,
        "rounds_won": list(state.rounds_won),
        "pressed": list(state.pressed),
        "opened": state.opened,
        "idle_since": list(state.idle_since),
        "last_press": list(state.last_press),
        "recycles": list(state.recycles),
        "last_move": None
        if last is None
        else [last.seat, last.row_pile, last.card.code, last.centre, last.auto],
        "winner": state.winner,
        "end_reason": state.end_reason,
        "countdown": state.countdown,
        "idle_seconds": state.idle_seconds,
        "forfeit_seconds": state.forfeit_seconds,
        "paused": list(state.paused),
    }


def load_state(data: Mapping[str, Any]) -> DavaykaState:
    last = data["last_move"]
    return DavaykaState(
        rows=tuple(tuple(_pile(pile) for pile in row) for row in data["rows"]),
        stocks=tuple(_pile(stock) for stock in data["stocks"]),
        centres=tuple(_pile(pile) for pile in data["centres"]),
        centre_owners=tuple(int(s) for s in data["centre_owners"]),
        phase=str(data["phase"]),
        round_no=int(data["round_no"]),
        rounds_won=tuple(int(n) for n in data["rounds_won"]),
        pressed=tuple(bool(p) for p in data["pressed"]),
        opened=float(data["opened"]),
        idle_since=tuple(float(t) for t in data["idle_since"]),
        last_press=tuple(float(t) for t in data["last_press"]),
        recycles=tuple(int(n) for n in data["recycles"]),
        last_move=None
        if last is None
        else LastMove(
            int(last[0]), int(last[1]), parse_card(last[2]), int(last[3]), bool(last[4])
        ),
        winner=None if data["winner"] is None else int(data["winner"]),
        end_reason=str(data["end_reason"]),
        countdown=float(data["countdown"]),
        idle_seconds=float(data["idle_seconds"]),
        forfeit_seconds=float(data["forfeit_seconds"]),
        # Saved before the forfeit clock could stand still: running for both.
        paused=tuple(None if t is None else float(t) for t in data.get("paused", (None, None))),
    )
