"""Shared machinery of the game use cases: loading a game, applying a step, saving it.

Every change of a game goes through :meth:`GameStore.commit_step`, which writes the new state
with the optimistic version check, appends to the action log, moves the deadline, and writes
the results when the game is over — all in the caller's transaction.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from random import Random
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.engine import Event, Outcome, Rules
from bot.games.registry import get_rules
from bot.services.outbox import RESULT, Letter, add_letters
from bot.services.ratings import RatedGame, rated_game, record_game
from bot.services.snapshots import (
    ChatColumns,
    GameColumns,
    SeatColumns,
    UserColumns,
    abandoned_seats,
    build_snapshot,
    outcome_as_counted,
    seat_infos,
)
from bot.services.types import GameSnapshot, SeatInfo, ServiceError
from bot.storage import lean
from bot.storage.lean import ChatRecord, GameRecord, GameRecords, SeatRecord, UserRecord
from bot.storage.models import (
    FINISHED,
    PLAYING,
    ChatRow,
    GameRow,
    ResultRow,
    SeatRow,
    UserRow,
    utcnow,
)
from bot.storage.repositories import Actions, Games, Results

logger = logging.getLogger(__name__)

#: How many public events the table's short log keeps.
RECENT_EVENTS = 5

Clock = Callable[[], float]


class StepLike(Protocol):
    """A step to save: the rules' :class:`~bot.games.engine.Step`, or a due timer's."""

    @property
    def state(self) -> Any: ...
    @property
    def events(self) -> tuple[Event, ...]: ...


async def advance_each(
    game_ids: Sequence[int], advance: Callable[[int], Awaitable[GameSnapshot | None]]
) -> list[GameSnapshot]:
    """Move on each due game, one transaction each: the snapshots of those that changed. A
    game refused on the way (another process or a press got there first: nothing is due any
    more) is skipped."""
    changed = []
    for game_id in game_ids:
        try:
            snapshot = await advance(game_id)
        except ServiceError as refused:
            logger.debug("Game %s not moved on: %s", game_id, refused.code)
            continue
        if snapshot is not None:
            changed.append(snapshot)
    return changed


def step_rng(seed: int, version: int) -> Random:
    """The generator for the step that produces ``version``: a game replays from its seed."""
    return Random(seed * 1_000_003 + version)


class GameAtHand:
    """What the use cases read of a loaded game, whichever way its rows were read."""

    __slots__ = ()
    row: GameColumns
    seats: Sequence[SeatColumns]
    users: Mapping[int, UserColumns]
    chat: ChatColumns | None
    #: A finished game's rating changes as read with it (``None``: not read, or not over).
    rated: RatedGame | None

    @property
    def infos(self) -> tuple[SeatInfo, ...]:
        """The seats as the snapshot shows them (re-read: timeouts change within a step)."""
        return seat_infos(self.seats, self.users, self.row.options)

    @property
    def rules(self) -> Rules[Any, Any]:
        return get_rules(self.row.game_key)

    def computer_seats(self) -> set[int]:
        """Seats a computer plays now: computer players and persons on autopilot."""
        return {info.seat for info in self.infos if info.played_by_computer}

    def snapshot(
        self,
        *,
        state: Any = None,
        events: tuple[Event, ...] = (),
        ratings: RatedGame | None = None,
    ) -> GameSnapshot:
        snapshot = build_snapshot(self.row, self.infos, self.chat, state=state, events=events)
        ratings = ratings or self.rated
        if ratings is None or not ratings.changes:
            return snapshot
        return replace(snapshot, ratings=ratings.changes, provisional=ratings.provisional)


@dataclass(slots=True)
class LoadedGame(GameAtHand):
    """One game's rows, read inside the current transaction through the ORM."""

    session: AsyncSession
    row: GameRow
    seats: list[SeatRow]
    users: dict[int, UserRow]
    chat: ChatRow | None
    rated: RatedGame | None = None

    def seat_of(self, user_id: int) -> SeatRow | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


@dataclass(slots=True)
class PlainGame(GameAtHand):
    """One game as plain records (:mod:`bot.storage.lean`), for the steps run on SQLite's
    connection directly; what a step writes is written by the caller, statement by
    statement."""

    row: GameRecord
    seats: list[SeatRecord]
    users: dict[int, UserRecord]
    chat: ChatRecord | None
    #: Never read: a plain game is one still being played.
    rated: RatedGame | None = None

    @classmethod
    def of(cls, records: GameRecords) -> PlainGame:
        return cls(records.game, records.seats, records.users, records.chat)

    def seat_of(self, user_id: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


class GameStore:
    """Loads and saves games for the lobby, play and timer use cases."""

    def __init__(self, computer_delay: float, clock: Clock = time.time) -> None:
        self.computer_delay = computer_delay
        self.clock = clock

    async def load(self, session: AsyncSession, game_id: int, *, lock: bool = False) -> LoadedGame:
        found = await Games(session).with_players(game_id, lock=lock)
        if found is None:
            raise ServiceError("game.not_found")
        row, chat, seated = found
        seats = [seat for seat, _user in seated]
        users = {user.id: user for _seat, user in seated if user is not None}
        # A finished game shows what it did to the ratings wherever it is shown again (a
        # rematch republishes it, /history summarises it): they are read with it.
        rated = await rated_game(session, row.id, row.chat_id) if row.status == FINISHED else None
        return LoadedGame(session, row, seats, users, chat, rated)

    @staticmethod
    def load_plain(connection: sqlite3.Connection, game_id: int) -> PlainGame:
        """The game as plain records, read on SQLite's connection inside its transaction
        (:meth:`bot.storage.database.Database.sqlite_transaction`)."""
        records = lean.load(connection, game_id)
        if records is None:
            raise ServiceError("game.not_found")
        return PlainGame.of(records)

    async def load_row(self, session: AsyncSession, row: GameRow) -> LoadedGame:
        """The rest of a game whose row is already read (the session keeps that very row)."""
        return await self.load(session, row.id)

    def deadline(
        self, rules: Rules[Any, Any], state: Any, computers: set[int], now: float
    ) -> float | None:
        """When this game next needs the poller: its open window, or a computer's move.

        A computer moves a pause after the change that gave it the move — in a game of turns,
        this one — or, where the rules say since when each seat has had something to do
        (``acting_since``), a pause after that: in a real-time game the other player's quicker
        moves then do not put the computer's off, or it would never move while a person
        plays; several computers acting at once (Progression's Next) all act a pause after
        it, not one pause after another.
        """
        deadline = rules.next_deadline(state)
        acting = computers.intersection(rules.acting_seats(state))
        if acting:
            since = getattr(rules, "acting_since", None)
            start = now if since is None else min(since(state, seat) for seat in acting)
            move_at = start + self.computer_delay
            deadline = move_at if deadline is None else min(deadline, move_at)
        return deadline

    def columns(
        self,
        row: GameColumns,
        rules: Rules[Any, Any],
        state: Any,
        events: tuple[Event, ...],
        computers: set[int],
        now: float,
        *,
        status: str | None = None,
        outcome: Outcome | None = None,
    ) -> tuple[dict[str, Any], Outcome | None]:
        """What a step writes into the game's row — ``state``, ``status``, ``deadline_at``,
        ``recent`` — and the game's outcome if this step ends it."""
        outcome = outcome or rules.outcome(state)
        status = status or (FINISHED if outcome is not None else row.status)
        public_events = [e.dump() for e in events if e.only_seat is None]
        recent = [*(row.recent or ()), *public_events][-RECENT_EVENTS:]
        deadline = None if status != PLAYING else self.deadline(rules, state, computers, now)
        values: dict[str, Any] = {
            "state": rules.dump(state),
            "status": status,
            "deadline_at": deadline,
            "recent": recent,
        }
        return values, outcome

    def commit_plain(
        self,
        connection: sqlite3.Connection,
        game: PlainGame,
        step: StepLike,
        now: float,
        *,
        seat: int | None,
        source: str,
        action: str | None,
        status: str | None = None,
        outcome: Outcome | None = None,
        timeouts: Mapping[int, int] | None = None,
    ) -> bool:
        """:meth:`commit_step` in plain statements on SQLite's connection, for a step that
        leaves the game playing; the records then show the new version. ``timeouts``: the
        seats whose missed turns the step changed (seat → missed turns now). ``False``, with
        nothing written, when the step ends the game: :meth:`commit_step` must take it, to
        record the results."""
        row = game.row
        values, outcome = self.columns(
            row,
            game.rules,
            step.state,
            step.events,
            game.computer_seats(),
            now,
            status=status,
            outcome=outcome,
        )
        if outcome is not None or values["status"] != PLAYING:
            return False
        if not lean.save_if_version(connection, row.id, row.version, **values):
            raise ServiceError("play.stale")
        for number, missed in (timeouts or {}).items():
            lean.set_timeouts(connection, row.id, number, missed)
        row.version += 1
        row.deadline_at, row.recent = values["deadline_at"], values["recent"]
        lean.append_action(connection, row.id, row.version, seat, source, action, now)
        return True

    async def commit_step(
        self,
        game: LoadedGame,
        state: Any,
        events: tuple[Event, ...],
        *,
        seat: int | None,
        source: str,
        action: str | None,
        now: float,
        status: str | None = None,
        outcome: Outcome | None = None,
    ) -> GameSnapshot:
        """Save ``state`` as the next version of ``game``; refuse if the version moved on.

        ``outcome`` ends an unfinished game with these places (everyone left: the
        standings); otherwise the rules say whether ``state`` is over. A finished game's
        results and ratings count its outcome as the snapshot shows it: the seats abandoned
        at the end below every seat that stayed (:func:`~bot.games.engine.counted_outcome`).
        """
        row, rules = game.row, game.rules
        ratings: RatedGame | None = None
        values, outcome = self.columns(
            row, rules, state, events, game.computer_seats(), now, status=status, outcome=outcome
        )
        status = values["status"]
        if status == FINISHED:
            values["finished_at"] = utcnow()
        if status == PLAYING and row.started_at is None:
            values["started_at"] = utcnow()
        games = Games(game.session)
        if not await games.save_if_version(row.id, row.version, **values):
            raise ServiceError("play.stale")
        new_version = row.version + 1
        await Actions(game.session).append(row.id, new_version, seat, source, action, now)
        infos = game.infos
        counted = outcome_as_counted(outcome, infos)
        if counted is not None:
            results = Results(game.session)
            for info, place in zip(infos, counted.places, strict=True):
                score = counted.scores[info.seat] if counted.scores is not None else None
                results.add(
                    ResultRow(
                        game_id=row.id,
                        seat=info.seat,
                        user_id=info.user_id,
                        place=place,
                        score=score,
                        players=len(infos),
                        game_key=row.game_key,
                        chat_id=row.chat_id,
                    )
                )
            ratings = await record_game(
                game.session,
                game_id=row.id,
                chat_id=row.chat_id,
                game_key=row.game_key,
                players=[info.user_id for info in infos],
                places=counted.places,
                abandoned=abandoned_seats(infos),
            )
        games.mirror(row, version=new_version, **values)
        snapshot = game.snapshot(state=state, events=events, ratings=ratings)
        if status == FINISHED and snapshot.outcome is not None and snapshot.chat_kind != "private":
            # An edit of the table notifies nobody: the end is said in a message of its own,
            # written with the end itself, so that no stop loses it.
            # It is drawn as it goes, from the game (its ratings' changes with it).
            await add_letters(game.session, [Letter(row.chat_id, {}, RESULT, row.id)], now)
        return snapshot
