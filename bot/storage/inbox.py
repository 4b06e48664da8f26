"""The inbox: updates stored before Telegram hears they arrived, and handled exactly once.

An update is committed here (``inbox``, keyed by Telegram's ``update_id``: a redelivery stores
nothing) before a webhook answers 200 or long polling moves its offset past it; so a process
killed at any moment loses no press. The leader handles what is stored. The first
transaction of its handling that writes anything also marks the update handled — in that same
transaction — so a press is applied once even if the process dies just after: the next leader
finds it handled (:class:`AlreadyHandled`) instead of applying it again. A handling that
writes nothing (a /help, a refused press) is marked after it, in a batch.

The leader's flood budget is written behind its calls (``telegram_calls``), so that the next
leader starts from the same windows (:class:`Calls`).
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from bot.storage.models import CallRow, InboxRow

#: The PostgreSQL channel an update stored in the inbox is announced on.
CHANNEL = "cardroom_inbox"
#: The channel the leader tells the other processes' Mini App sockets on.
APP_CHANNEL = "cardroom_app"


class AlreadyHandled(Exception):
    """The update was handled before (redelivered to a new leader after a crash): nothing
    of it may be applied again."""

    def __init__(self, update_id: int) -> None:
        super().__init__(f"update {update_id} was handled before")
        self.update_id = update_id


@dataclass(slots=True)
class Handling:
    """The update a task is handling, and whether a write of it has marked it handled."""

    update_id: int
    task: asyncio.Task[Any] | None
    marked: bool = False


_HANDLING: contextvars.ContextVar[Handling | None] = contextvars.ContextVar(
    "cardroom_handling", default=None
)


@contextmanager
def handling(update_id: int) -> Iterator[Handling]:
    """The current task handles ``update_id`` from the inbox: its first writing transaction
    marks it handled. Tasks it starts (a delivery, a computer's move) inherit the context but
    never mark: only this task's own transactions speak for the update."""
    current = Handling(update_id, asyncio.current_task())
    token = _HANDLING.set(current)
    try:
        yield current
    finally:
        _HANDLING.reset(token)


def unmarked() -> Handling | None:
    """The update this task handles, if none of its writes has marked it handled yet."""
    current = _HANDLING.get()
    if current is None or current.marked or current.task is not asyncio.current_task():
        return None
    return current


_MARK = text(
    "UPDATE inbox SET handled_at = :now WHERE update_id = :update_id AND handled_at IS NULL"
)
_MARK_PLAIN = "UPDATE inbox SET handled_at = ? WHERE update_id = ? AND handled_at IS NULL"


async def mark(connection: AsyncConnection, current: Handling, now: float) -> None:
    """Mark the update handled inside the transaction that applies it; if it was handled
    before, :class:`AlreadyHandled` (the transaction is rolled back)."""
    result = await connection.execute(_MARK, {"now": now, "update_id": current.update_id})
    if not result.rowcount:
        raise AlreadyHandled(current.update_id)


def mark_plain(connection: sqlite3.Connection, current: Handling, now: float) -> None:
    """:func:`mark` in a plain SQLite transaction (:mod:`bot.storage.lean`)."""
    if not connection.execute(_MARK_PLAIN, (now, current.update_id)).rowcount:
        raise AlreadyHandled(current.update_id)


@dataclass(frozen=True, slots=True)
class Stored:
    """An update waiting in the inbox."""

    update_id: int
    chat_id: int | None
    payload: dict[str, Any]


class Inbox:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def take(self, updates: Sequence[Stored], now: float) -> list[int]:
        """Store updates not stored before; the positions of those that were new. On
        PostgreSQL the leader listening on :data:`CHANNEL` is woken when the transaction
        commits."""
        if not updates:
            return []
        dialect = self.session.get_bind().dialect.name
        insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
        new = []
        for position, update_ in enumerate(updates):
            result = await self.session.execute(
                insert_(InboxRow)
                .values(
                    update_id=update_.update_id,
                    chat_id=update_.chat_id,
                    payload=update_.payload,
                    taken_at=now,
                )
                .on_conflict_do_nothing(index_elements=["update_id"])
            )
            if getattr(result, "rowcount", 0):
                new.append(position)
        if new and dialect == "postgresql":
            await notify(self.session, CHANNEL, "")
        return new

    async def pending(self, limit: int, after: int | None = None) -> list[Stored]:
        """A page of the updates not handled yet, in ``update_id`` order: the first
        ``limit`` of them, or of those after ``after`` (the previous page's last id) — a
        backlog is read page after page, with one parameter, however long it is."""
        query = select(InboxRow.update_id, InboxRow.chat_id, InboxRow.payload).where(
            InboxRow.handled_at.is_(None)
        )
        if after is not None:
            query = query.where(InboxRow.update_id > after)
        rows = await self.session.execute(query.order_by(InboxRow.update_id).limit(limit))
        return [Stored(update_id, chat_id, payload) for update_id, chat_id, payload in rows]

    async def unhandled_of(
        self, chats: Sequence[int], below: int, limit: int
    ) -> list[tuple[int, int]]:
        """The updates of these chats not handled yet whose ids are below ``below``, whoever
        stored them: (update id, chat id), lowest first, ``limit`` at most."""
        rows = await self.session.execute(
            select(InboxRow.update_id, InboxRow.chat_id)
            .where(
                InboxRow.handled_at.is_(None),
                InboxRow.chat_id.in_(list(chats)),
                InboxRow.update_id < below,
            )
            .order_by(InboxRow.update_id)
            .limit(limit)
        )
        return [(update_id, chat_id) for update_id, chat_id in rows if chat_id is not None]

    async def done(self, update_ids: Sequence[int], now: float) -> None:
        """These were handled (those a write of theirs marked already stay as they are)."""
        if update_ids:
            await self.session.execute(
                update(InboxRow)
                .where(InboxRow.update_id.in_(list(update_ids)), InboxRow.handled_at.is_(None))
                .values(handled_at=now)
            )

    async def oldest_waiting(self) -> float | None:
        """When the oldest update not handled yet was taken (``None``: none waits)."""
        return await self.session.scalar(
            select(func.min(InboxRow.taken_at)).where(InboxRow.handled_at.is_(None))
        )

    async def forget_handled(self, before: float) -> None:
        """Drop updates handled before ``before`` (Telegram redelivers for a day at most)."""
        await self.session.execute(
            delete(InboxRow).where(InboxRow.handled_at.is_not(None), InboxRow.handled_at < before)
        )


async def notify(session: AsyncSession, channel: str, payload: str) -> None:
    """Tell every process listening on ``channel`` (PostgreSQL; when the transaction
    commits)."""
    await session.execute(
        text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload}
    )


class Calls:
    """The calls made into chats lately: chat id, and when by the database's clock
    (:meth:`now`, seconds since the epoch) — one clock for every process, whatever the
    machines' own clocks say."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def now(self) -> float:
        """The database's clock, in seconds since the epoch."""
        if self.session.get_bind().dialect.name == "postgresql":
            # The clock's, not the transaction's start (``now()``), which may be a while ago.
            query = text("SELECT extract(epoch FROM clock_timestamp())::float8")
        else:
            # In milliseconds on every SQLite (``unixepoch('subsec')`` only from 3.42).
            query = text("SELECT (julianday('now') - 2440587.5) * 86400.0")
        return float((await self.session.execute(query)).scalar_one())

    async def record(self, calls: Sequence[tuple[int, float]]) -> None:
        if calls:
            await self.session.execute(
                insert(CallRow), [{"chat_id": c, "at": at} for c, at in calls]
            )

    async def since(self, at: float) -> list[tuple[int, float]]:
        rows = await self.session.execute(
            select(CallRow.chat_id, CallRow.at).where(CallRow.at >= at).order_by(CallRow.at)
        )
        return [(chat_id, when) for chat_id, when in rows]

    async def forget(self, before: float) -> None:
        await self.session.execute(delete(CallRow).where(CallRow.at < before))
