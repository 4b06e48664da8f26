"""The database engine, sessions and migrations.

SQLite (the default) gets its pragmas on every connection and a single connection: SQLite
allows one writer at a time, and one connection queues writers in the pool instead of letting
them fight over the file lock. Its calls run on the event loop's thread
(:mod:`bot.storage.inline_sqlite`). PostgreSQL works by changing ``DATABASE_URL`` only.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

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

from bot.storage import inline_sqlite

logger = logging.getLogger(__name__)

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
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
        memory = make_url(url).database in (None, "", ":memory:")
        if memory:
            kwargs["poolclass"] = StaticPool
        else:
            kwargs.update(pool_size=1, max_overflow=0, pool_timeout=60)
        engine = create_async_engine(url, **kwargs)
        event.listen(engine.sync_engine, "connect", _set_sqlite_pragmas)
        return engine
    kwargs.update(pool_size=10, max_overflow=10, pool_pre_ping=True)
    return create_async_engine(url, **kwargs)


class Database:
    """The engine and the session factory; ``transaction()`` is one unit of work."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
        self.is_sqlite = engine.dialect.name == "sqlite"

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(create_engine(url))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session inside one transaction: committed on success, rolled back on error."""
        async with self.sessions() as session, session.begin():
            yield session

    async def close(self) -> None:
        await self.engine.dispose()
