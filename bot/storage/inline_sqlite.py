"""SQLite under the asyncio engine, without a thread hand-off for every call.

SQLAlchemy's ``sqlite+aiosqlite`` dialect sends each DB-API call — open a cursor, execute,
fetch, close, commit — to aiosqlite's worker thread and waits for the answer: four hand-offs
per statement, each tens to hundreds of microseconds of waking a thread and passing the GIL
back. The bot's statements are point queries on indexed rows that SQLite answers in a few
microseconds, so the hand-offs were most of a press's database time.

:func:`connect` gives the dialect a connection with aiosqlite's awaitable interface (through
``create_async_engine(async_creator=...)``, SQLAlchemy's documented hook) whose calls run at
once, on the event loop's thread. The price, and why it is worth it here:

* a statement holds the event loop while SQLite works: microseconds for the bot's queries, a
  few milliseconds when a commit checkpoints the write-ahead log;
* a lock held by *another process* would hold the loop up to ``busy_timeout``. SQLite serves
  one bot process (its one connection queues the writers of that process); several processes
  share PostgreSQL, whose driver is asynchronous anyway.

One call is the exception: a durable commit (``flush_aside``, the inbox's, flushed to the
disk) waits for the disk, a millisecond usually but tens of milliseconds on a busy one, so it
runs on a worker thread while the loop serves the pages and presses meanwhile. Nothing else
touches the connection then: every use of it waits for its turn, which the committing
transaction holds (:meth:`bot.storage.database.Database.transaction`).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from sqlalchemy.engine import make_url


class InlineCursor:
    """An aiosqlite-style cursor whose coroutines finish at once."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> InlineCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._cursor.close()

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> InlineCursor:
        if parameters is None:
            self._cursor.execute(sql)
        else:
            self._cursor.execute(sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Sequence[Any]]) -> InlineCursor:
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(size if size is not None else self._cursor.arraysize)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _RunAtOnce:
    """Stands in for aiosqlite's request queue, which the dialect uses to set the
    isolation level: the request is carried out as it is put."""

    __slots__ = ()

    @staticmethod
    def put_nowait(request: tuple[Any, Callable[[], Any]]) -> None:
        future, function = request
        try:
            future.set_result(function())
        except Exception as error:  # handed to the awaiting caller, as aiosqlite does
            future.set_exception(error)


class InlineConnection:
    """An aiosqlite-style connection whose coroutines run SQLite at once."""

    _tx = _RunAtOnce()

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn: sqlite3.Connection | None = connection
        #: Commit on a worker thread (a durable transaction's commit waits for the disk).
        self.flush_aside = False

    @property
    def _connection(self) -> sqlite3.Connection | None:
        """The open sqlite3 connection (``None`` once closed), as aiosqlite names it."""
        return self._conn

    def _open(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ValueError("no active connection")
        return self._conn

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def sqlite(self) -> sqlite3.Connection:
        """The open ``sqlite3`` connection, for statements run without SQLAlchemy."""
        return self._open()

    @property
    def isolation_level(self) -> str | None:
        return self._open().isolation_level

    def cursor(self) -> InlineCursor:
        return InlineCursor(self._open().cursor())

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._open().create_function(*args, **kwargs)

    async def commit(self) -> None:
        if not self.flush_aside:
            self._open().commit()
            return
        flushing = asyncio.ensure_future(asyncio.to_thread(self._open().commit))
        try:
            await asyncio.shield(flushing)
        except asyncio.CancelledError:
            # The thread commits on whatever its caller does: nothing may touch the
            # connection (a rollback, the next transaction) before it is done.
            await asyncio.wait([flushing])
            raise

    async def rollback(self) -> None:
        self._open().rollback()

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def stop(self) -> None:
        """Close at once (SQLAlchemy's forced termination)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def creator(url: str) -> Callable[[], Any]:
    """The ``async_creator`` for a ``sqlite+aiosqlite`` URL: opens its file inline."""
    database = make_url(url).database or ":memory:"

    async def connect() -> InlineConnection:
        # The engine may be disposed of from another thread (Alembic's runs in one);
        # every call is still made by one task at a time (Database.transaction()).
        return InlineConnection(sqlite3.connect(database, check_same_thread=False))

    return connect
