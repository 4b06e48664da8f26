"""Repositories: the queries the services need, over one session. They never commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from bot.storage.models import (
    OPEN_STATUSES,
    PLAYING,
    ActionRow,
    ChatRow,
    GameRow,
    ResultRow,
    SeatRow,
    UserRow,
    utcnow,
)


class Users:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, user_id: int) -> UserRow | None:
        return await self.session.get(UserRow, user_id)

    async def upsert(
        self,
        user_id: int,
        first_name: str,
        username: str | None,
        language_code: str | None,
        *,
        started: bool = False,
    ) -> UserRow:
        """Create or refresh a user from what Telegram just told us about him."""
        row = await self.session.get(UserRow, user_id)
        if row is None:
            row = UserRow(
                id=user_id,
                first_name=first_name,
                username=username,
                language_code=language_code,
                started=started,
            )
            self.session.add(row)
            # Games and seats refer to users: make the row exist before they are inserted.
            await self.session.flush()
        else:
            row.first_name = first_name
            row.username = username
            if language_code:
                row.language_code = language_code
            row.started = row.started or started
        return row

    async def by_ids(self, user_ids: Sequence[int]) -> dict[int, UserRow]:
        if not user_ids:
            return {}
        rows = await self.session.scalars(select(UserRow).where(UserRow.id.in_(user_ids)))
        return {row.id: row for row in rows}


class Chats:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, chat_id: int) -> ChatRow | None:
        return await self.session.get(ChatRow, chat_id)

    async def upsert(self, chat_id: int, kind: str, title: str | None) -> ChatRow:
        row = await self.session.get(ChatRow, chat_id)
        if row is None:
            row = ChatRow(id=chat_id, kind=kind, title=title, settings={})
            self.session.add(row)
            await self.session.flush()
        else:
            row.kind = kind
            row.title = title
        return row


class ChatMoves:
    """Moving everything of a chat to its new id (a group upgraded to a supergroup)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def move(self, old_id: int, new_id: int) -> list[int]:
        """Re-point games and results; returns the open games, whose messages must be re-sent."""
        old = await self.session.get(ChatRow, old_id)
        if old is None:
            return []
        new = await self.session.get(ChatRow, new_id)
        if new is None:
            new = ChatRow(
                id=new_id,
                kind="supergroup",
                title=old.title,
                language=old.language,
                settings=dict(old.settings or {}),
            )
            self.session.add(new)
            await self.session.flush()
        await self.session.execute(
            update(GameRow)
            .where(GameRow.chat_id == old_id)
            .values(chat_id=new_id)
            .execution_options(synchronize_session=False)
        )
        await self.session.execute(
            update(ResultRow).where(ResultRow.chat_id == old_id).values(chat_id=new_id)
        )
        open_ids = list(
            await self.session.scalars(
                select(GameRow.id).where(
                    GameRow.chat_id == new_id, GameRow.status.in_(OPEN_STATUSES)
                )
            )
        )
        await self.session.execute(
            update(GameRow).where(GameRow.id.in_(open_ids)).values(table_message_id=None)
        )
        await self.session.delete(old)
        return open_ids


class Games:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, game_id: int, *, lock: bool = False) -> GameRow | None:
        """The game row; with ``lock``, locked for this transaction where the backend can."""
        statement = select(GameRow).where(GameRow.id == game_id)
        if lock:
            statement = statement.with_for_update()
        return (await self.session.scalars(statement)).one_or_none()

    async def refresh(self, row: GameRow) -> None:
        await self.session.refresh(row)

    async def open_in_topic(self, chat_id: int, topic_id: int) -> GameRow | None:
        statement = select(GameRow).where(
            GameRow.chat_id == chat_id,
            GameRow.topic_id == topic_id,
            GameRow.status.in_(OPEN_STATUSES),
        )
        return (await self.session.scalars(statement)).first()

    async def by_token(self, token: str) -> GameRow | None:
        return (
            await self.session.scalars(select(GameRow).where(GameRow.join_token == token))
        ).one_or_none()

    def add(self, row: GameRow) -> None:
        self.session.add(row)

    async def flush(self) -> None:
        await self.session.flush()

    async def save_if_version(self, game_id: int, expected_version: int, **values: Any) -> bool:
        """Write ``values`` and bump the version only if nobody else did since we read it.

        This is the optimistic-concurrency check: of two writers that read the same version,
        exactly one succeeds.
        """
        result = await self.session.execute(
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.version == expected_version)
            .values(version=expected_version + 1, **values)
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    @staticmethod
    def mirror(row: GameRow, **values: Any) -> None:
        """Show on a loaded row what an UPDATE statement wrote, without writing it again."""
        for name, value in values.items():
            set_committed_value(row, name, value)

    async def set_table_message(self, game_id: int, message_id: int | None) -> None:
        await self.session.execute(
            update(GameRow).where(GameRow.id == game_id).values(table_message_id=message_id)
        )

    async def due(self, now: float, limit: int, *, skip_locked: bool) -> list[int]:
        """Ids of playing games whose deadline has passed, earliest first."""
        statement = (
            select(GameRow.id)
            .where(GameRow.status == PLAYING, GameRow.deadline_at <= now)
            .order_by(GameRow.deadline_at)
            .limit(limit)
        )
        if skip_locked:
            statement = statement.with_for_update(skip_locked=True)
        return list(await self.session.scalars(statement))

    async def next_deadline(self) -> float | None:
        return await self.session.scalar(
            select(func.min(GameRow.deadline_at)).where(GameRow.status == PLAYING)
        )

    async def open_in_chat(self, chat_id: int) -> list[int]:
        """Open lobbies and games of a chat, in every topic."""
        return list(
            await self.session.scalars(
                select(GameRow.id).where(
                    GameRow.chat_id == chat_id, GameRow.status.in_(OPEN_STATUSES)
                )
            )
        )

    async def open_game_ids(self) -> list[int]:
        return list(
            await self.session.scalars(select(GameRow.id).where(GameRow.status.in_(OPEN_STATUSES)))
        )


class Seats:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def of_game(self, game_id: int) -> list[SeatRow]:
        rows = await self.session.scalars(
            select(SeatRow).where(SeatRow.game_id == game_id).order_by(SeatRow.seat)
        )
        return list(rows)

    def add(self, row: SeatRow) -> None:
        self.session.add(row)

    async def delete(self, row: SeatRow) -> None:
        await self.session.delete(row)

    async def flush(self) -> None:
        await self.session.flush()

    async def set_dm_message(self, game_id: int, seat: int, message_id: int | None) -> None:
        await self.session.execute(
            update(SeatRow)
            .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(dm_message_id=message_id)
        )

    async def set_timeouts(self, game_id: int, seat: int, timeouts: int) -> None:
        await self.session.execute(
            update(SeatRow)
            .where(SeatRow.game_id == game_id, SeatRow.seat == seat)
            .values(timeouts=timeouts)
        )


class Actions:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def append(
        self,
        game_id: int,
        version: int,
        seat: int | None,
        source: str,
        action: str | None,
        at: float,
    ) -> None:
        self.session.add(
            ActionRow(
                game_id=game_id, version=version, seat=seat, source=source, action=action, at=at
            )
        )

    async def of_game(self, game_id: int) -> list[ActionRow]:
        rows = await self.session.scalars(
            select(ActionRow).where(ActionRow.game_id == game_id).order_by(ActionRow.version)
        )
        return list(rows)


@dataclass(frozen=True, slots=True)
class GameTally:
    """One player's record in one game: games played and wins."""

    game_key: str
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class BoardLine:
    user_id: int
    name: str
    games: int
    wins: int


class Results:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    def add(self, row: ResultRow) -> None:
        self.session.add(row)

    async def of_game(self, game_id: int) -> list[ResultRow]:
        rows = await self.session.scalars(
            select(ResultRow).where(ResultRow.game_id == game_id).order_by(ResultRow.seat)
        )
        return list(rows)

    async def tally_for_user(self, user_id: int) -> list[GameTally]:
        wins = func.sum((ResultRow.place == 1).cast(ResultRow.place.type))
        rows = await self.session.execute(
            select(ResultRow.game_key, func.count(), wins)
            .where(ResultRow.user_id == user_id)
            .group_by(ResultRow.game_key)
            .order_by(ResultRow.game_key)
        )
        return [GameTally(key, games, int(w or 0)) for key, games, w in rows]

    async def board(self, chat_id: int, game_key: str | None, limit: int) -> list[BoardLine]:
        """The chat's players by wins (then fewer games), computer seats left out."""
        wins = func.sum((ResultRow.place == 1).cast(ResultRow.place.type)).label("wins")
        games = func.count().label("games")
        statement = (
            select(ResultRow.user_id, UserRow.first_name, games, wins)
            .join(UserRow, UserRow.id == ResultRow.user_id)
            .where(ResultRow.chat_id == chat_id)
            .group_by(ResultRow.user_id, UserRow.first_name)
            .order_by(wins.desc(), games.asc(), UserRow.first_name)
            .limit(limit)
        )
        if game_key is not None:
            statement = statement.where(ResultRow.game_key == game_key)
        rows = await self.session.execute(statement)
        return [BoardLine(uid, name, g, int(w or 0)) for uid, name, g, w in rows]


def mark_finished(row: GameRow, status: str) -> None:
    row.status = status
    row.finished_at = utcnow()
    row.deadline_at = None
