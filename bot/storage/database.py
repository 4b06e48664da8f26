"""The database engine, sessions and migrations.

SQLite (the default) gets its pragmas and exactly one connection (a ``StaticPool``): SQLite
allows one writer at a time, so transactions take turns for that connection, first come
first served, instead of fighting over the file's lock. Its calls run on the event loop's
thread (:mod:`bot.storage.inline_sqlite`). PostgreSQL works by changing ``DATABASE_URL`` only.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import StaticPool

from bot.storage import inbox, inline_sqlite, outbox
from bot.storage.outage import Outage, StorageRefused, refusal

logger = logging.getLogger(__name__)

#: Seconds a transaction waits for SQLite's one connection before it gives up.
TURN_WAIT = 60.0

#: SQLite's ``synchronous`` for most transactions: in WAL mode, a commit is not flushed to
#: the disk at once (the log is, before each checkpoint), so a power loss may take the last
#: ones back — never a torn database. A press lost so is handled again from the inbox.
SQLITE_SYNCHRONOUS = "NORMAL"
#: ... and for a durable one (``transaction(durable=True)``: storing updates in the inbox,
#: which Telegram is then told arrived and never sends again): flushed at every commit.
SQLITE_DURABLE_SYNCHRONOUS = "FULL"

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}",
    "PRAGMA busy_timeout=5000",
    "PRAGMA foreign_keys=ON",
)


def _json_dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def ensure_sqlite_folder(url: str) -> None:
    """Create the folder of a SQLite database file if it does not exist yet."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    for pragma in SQLITE_PRAGMAS:
        cursor.execute(pragma)
    cursor.close()


def create_engine(url: str, *, echo: bool = False) -> AsyncEngine:
    """An async engine for ``url``, tuned for the backend."""
    kwargs: dict[str, Any] = {
        "echo": echo,
        "json_serializer": _json_dumps,
        "json_deserializer": orjson.loads,
    }
    if is_sqlite(url):
        ensure_sqlite_folder(url)
        kwargs["async_creator"] = inline_sqlite.creator(url)
        # One connection, shared; Database.transaction() gives it to one task at a time.
        kwargs["poolclass"] = StaticPool
        engine = create_async_engine(url, **kwargs)
        event.listen(engine.sync_engine, "connect", _set_sqlite_pragmas)
    else:
        kwargs.update(pool_size=10, max_overflow=10, pool_pre_ping=True)
        engine = create_async_engine(url, **kwargs)
    event.listen(engine.sync_engine, "after_cursor_execute", _note_write)
    return engine


def _note_write(
    connection: Any, _cursor: Any, _statement: Any, _parameters: Any, context: Any, _many: Any
) -> None:
    """A statement wrote (an INSERT, UPDATE or DELETE): its transaction is one that marks the
    update being handled (:mod:`bot.storage.inbox`)."""
    if context is not None and (context.isinsert or context.isupdate or context.isdelete):
        connection.info["wrote"] = True


class Database:
    """The engine and the session factory; ``transaction()`` is one unit of work."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
        self.is_sqlite = engine.dialect.name == "sqlite"
        # SQLite has one connection: transactions take turns for it in the order they
        # asked. (A pool's queue lets a newcomer take a connection that was just handed to
        # a waiter, which then queues again at the back: under load, the first waiters
        # starved for a second.)
        self._turns = asyncio.Lock() if self.is_sqlite else None
        self._inline: inline_sqlite.InlineConnection | None = None
        #: Whether the database refuses writes now, and since when.
        self.outage = Outage()
        #: SQLite's ``synchronous`` in a durable transaction (the bench compares it with
        #: :data:`SQLITE_SYNCHRONOUS`).
        self.durable_synchronous = SQLITE_DURABLE_SYNCHRONOUS
        #: Told when a transaction that added letters to the outbox has committed (the
        #: sender delivers them).
        self.on_letters: Callable[[], None] | None = None

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(create_engine(url))

    @asynccontextmanager
    async def transaction(self, *, durable: bool = False) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed on success, rolled back on error.
        ``durable``: on the disk when this returns, power loss or not (SQLite's commit is
        flushed; PostgreSQL's is, with its default ``synchronous_commit``).

        A write the database refuses (a full disk, a read-only file) is raised as
        :class:`StorageRefused`, the outage logged once (:class:`Outage`). Inside the
        handling of an update from the inbox, the first transaction that writes marks the
        update handled, or raises :class:`~bot.storage.inbox.AlreadyHandled` if it was
        (:mod:`bot.storage.inbox`)."""
        handling = inbox.unmarked()
        async with self._turn(durable=durable):
            before = self._changes()
            try:
                async with self.sessions() as session, session.begin():
                    if handling is not None:
                        (await session.connection()).info["wrote"] = False
                    yield session
                    if handling is not None:
                        await session.flush()
                        connection = await session.connection()
                        if connection.info.pop("wrote", False):
                            await inbox.mark(connection, handling, time.time())
                        else:
                            handling = None
                    letters = session.info.pop(outbox.WRITTEN, False)
            except Exception as error:
                self._refused(error)
                raise
            if handling is not None:
                handling.marked = True
            self._committed(before)
        if letters and self.on_letters is not None:
            self.on_letters()

    @asynccontextmanager
    async def _turn(self, *, durable: bool = False) -> AsyncIterator[None]:
        """Wait for SQLite's connection (first come, first served), at most ``TURN_WAIT``
        seconds: a transaction that never ends is a bug, and it must not hang every chat.
        ``durable``: the connection flushes each commit until the turn ends."""
        if self._turns is None:
            yield
            return
        try:
            async with asyncio.timeout(TURN_WAIT):
                await self._turns.acquire()
        except TimeoutError:
            raise TimeoutError(f"waited {TURN_WAIT:.0f} s for SQLite's connection") from None
        try:
            if durable:
                # Per connection and outside any transaction: the one connection is this
                # turn's, so only this transaction's commit pays for the flush — on a worker
                # thread, so that the loop is not held while the disk flushes.
                (await self._sqlite()).execute(f"PRAGMA synchronous={self.durable_synchronous}")
                if self._inline is not None:
                    self._inline.flush_aside = True
            yield
        finally:
            if durable and self._inline is not None and not self._inline.closed:
                self._inline.flush_aside = False
                self._inline.sqlite.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
            self._turns.release()

    @asynccontextmanager
    async def sqlite_transaction(self) -> AsyncIterator[sqlite3.Connection]:
        """The engine's SQLite connection itself, inside one transaction, for the plain
        statements of :mod:`bot.storage.lean`: it waits its turn like any transaction;
        committed on success, rolled back on error. It marks the update being handled as
        :meth:`transaction` does."""
        handling = inbox.unmarked()
        async with self._turn():
            sqlite = await self._sqlite()
            before = sqlite.total_changes
            try:
                sqlite.execute("BEGIN")
                try:
                    yield sqlite
                    if handling is not None and sqlite.total_changes != before:
                        inbox.mark_plain(sqlite, handling, time.time())
                    else:
                        handling = None
                except BaseException:
                    sqlite.rollback()
                    raise
                sqlite.commit()
            except Exception as error:
                self._refused(error)
                raise
            if handling is not None:
                handling.marked = True
            if sqlite.total_changes != before:
                self.outage.wrote()

    def _changes(self) -> int | None:
        """Rows SQLite's connection has changed so far (``None``: not SQLite, or not open)."""
        inline = self._inline
        return inline.sqlite.total_changes if inline is not None and not inline.closed else None

    def _committed(self, before: int | None) -> None:
        """A transaction committed: if it wrote, the database writes again."""
        if self.outage.active and (not self.is_sqlite or self._changes() != before):
            self.outage.wrote()

    def _refused(self, error: Exception) -> None:
        """A transaction failed: if the database refused to write, say so once, in kind."""
        reason = refusal(error)
        if reason is not None:
            self.outage.refuse(reason)
            raise StorageRefused(reason) from error

    async def _sqlite(self) -> sqlite3.Connection:
        """The ``sqlite3`` connection under the engine's one connection (asked of the pool
        once, and again only if the pool had to open a new one)."""
        if not self.is_sqlite:
            raise RuntimeError("plain SQLite statements need a SQLite database")
        inline = self._inline
        if inline is None or inline.closed:
            async with self.engine.connect() as connection:
                pooled = await connection.get_raw_connection()
                inline = cast(inline_sqlite.InlineConnection, pooled.driver_connection)
            self._inline = inline
        return inline.sqlite

    async def close(self) -> None:
        await self.engine.dispose()
