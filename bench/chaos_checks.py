"""What must hold in the database whatever people did: the rows a chaos run checks.

* Cards are conserved: a game's state, loaded with its rules, holds exactly its deck — the
  same count the engines' random-playout tests make (``tests/games/``), per game.
* A person's seat goes to the computer after ``autopilot_after`` missed turns in a row: how
  long that may take at most, per game, is :func:`handover_bound`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from bot.games.advantage.state import AdvantageState
from bot.games.cards import Card, standard_deck
from bot.games.davayka.state import DavaykaState
from bot.games.progression.state import ProgressionState
from bot.games.rank.model import RankState
from bot.games.registry import get_rules
from bot.games.trumps.state import TrumpsState
from bot.services.snapshots import autopilot_after
from bot.storage.database import Database
from bot.storage.models import GameRow, SeatRow

Holding = tuple[list[Card], list[Card]]
"""Every card a state holds, and the deck it was dealt from."""


def _rank(state: RankState) -> Holding:
    held = [*state.stock, *state.discard, *(c for hand in state.hands for c in hand)]
    return held, standard_deck(jokers=2) * (1 if len(state.hands) <= 4 else 2)


def _trumps(state: TrumpsState) -> Holding:
    held = [*state.hands[0], *state.hands[1], *state.pile, *state.stock]
    return held, standard_deck(low_rank=2 if state.deck52 else 6)


def _advantage(state: AdvantageState) -> Holding:
    held = [*state.stock, *state.hand(0), *state.hand(1), *state.pairs[0], *state.pairs[1]]
    return held + [c for pile in state.piles for c in pile], standard_deck()


def _progression(state: ProgressionState) -> Holding:
    held = [c for hand in state.hands for c in hand]
    held += [c for own in state.stacks for stack in own for c in stack]
    held += [c for stack in state.public for c in stack]
    return held + list(state.draw), standard_deck()


def _davayka(state: DavaykaState) -> Holding:
    held = [c for row in state.rows for pile in row for c in pile]
    held += [c for stock in state.stocks for c in stock]
    return held + [c for pile in state.centres for c in pile], standard_deck()


_HOLDINGS: dict[str, Callable[[Any], Holding]] = {
    "rank": _rank,
    "trumps": _trumps,
    "advantage": _advantage,
    "progression": _progression,
    "davayka": _davayka,
}


def conservation_error(game_key: str, state: dict[str, Any]) -> str | None:
    """``None`` if the stored ``state`` holds exactly its deck, else which cards are wrong."""
    held, deck = _HOLDINGS[game_key](get_rules(game_key).load(state))
    have, want = Counter(held), Counter(deck)
    if have == want:
        return None
    return f"missing {_codes(want - have)}, extra {_codes(have - want)}"


def _codes(cards: Counter[Card]) -> str:
    return " ".join(sorted(card.code for card in cards.elements())) or "none"


def is_realtime(game_key: str) -> bool:
    """Davay-ka has no turns: an idle player gets autopilot moves, then forfeits."""
    return bool(getattr(get_rules(game_key), "realtime", False))


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    user_id: int | None
    timeouts: int


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game row as a run sees it."""

    id: int
    game_key: str
    chat_id: int
    creator_id: int | None
    status: str
    options: dict[str, Any]
    state: dict[str, Any] | None
    deadline_at: float | None
    seats: tuple[SeatRecord, ...]
    #: Codes of the game's latest public events, oldest first.
    recent: tuple[str, ...] = ()

    @property
    def everyone_away(self) -> bool:
        """It ended because every person's seat was the computer's ("seat.all_away…")."""
        return bool(self.recent) and self.recent[-1].startswith("seat.all_away")

    def seat_of(self, user_id: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def persons(self) -> tuple[SeatRecord, ...]:
        return tuple(s for s in self.seats if s.user_id is not None)

    @property
    def autopilot_after(self) -> int:
        return autopilot_after(self.options)

    def on_autopilot(self, seat: SeatRecord) -> bool:
        return seat.user_id is not None and seat.timeouts >= self.autopilot_after


def handover_bound(game: GameRecord, turn_seconds: float) -> float:
    """Seconds after which a person silent since then no longer holds up this game.

    In a turn game his seat is the computer's by then: ``autopilot_after`` of his turns time
    out, and a round of play lasts at most two windows per seat (Rank's draw, then its play)
    plus the computers' moves. In Davay-ka he has forfeited (the forfeit clock runs in every
    phase). Restarts add a few seconds each; the margin covers them.
    """
    if is_realtime(game.game_key):
        return float(game.options.get("forfeit_seconds", 120)) + 30.0
    window = float(game.options.get("turn_seconds", turn_seconds))
    round_seconds = 2 * len(game.seats) * window + 10.0
    return (game.autopilot_after + 1) * round_seconds + 30.0


async def load_games(
    db: Database, ids: Iterable[int] | None = None, *, after: int = 0
) -> list[GameRecord]:
    """Games with an id above ``after`` (or exactly ``ids``), with their seats."""
    async with db.transaction() as session:
        query = select(GameRow).where(GameRow.id > after).order_by(GameRow.id)
        if ids is not None:
            query = query.where(GameRow.id.in_(list(ids)))
        rows = (await session.scalars(query)).all()
        seats = (
            await session.scalars(select(SeatRow).where(SeatRow.game_id.in_([r.id for r in rows])))
        ).all()
    by_game: dict[int, list[SeatRecord]] = {}
    for seat in sorted(seats, key=lambda s: (s.game_id, s.seat)):
        by_game.setdefault(seat.game_id, []).append(
            SeatRecord(seat.seat, seat.user_id, seat.timeouts)
        )
    return [
        GameRecord(
            row.id,
            row.game_key,
            row.chat_id,
            row.creator_id,
            row.status,
            dict(row.options),
            row.state,
            row.deadline_at,
            tuple(by_game.get(row.id, ())),
            tuple(str(event.get("code")) for event in row.recent or ()),
        )
        for row in rows
    ]


async def last_game_id(db: Database) -> int:
    async with db.transaction() as session:
        found = await session.scalar(select(GameRow.id).order_by(GameRow.id.desc()).limit(1))
    return found or 0
