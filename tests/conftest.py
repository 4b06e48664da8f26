"""Shared fixtures: a migrated database per test (SQLite file; PostgreSQL when asked)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage.database import Database
from bot.storage.migrate import upgrade_async


def _postgres_url() -> str | None:
    return os.environ.get("TEST_DATABASE_URL") or None


@pytest.fixture
async def database_url(tmp_path: Path) -> AsyncIterator[str]:
    """A freshly migrated database: SQLite in tmp_path, or a new PostgreSQL schema-less DB."""
    base = _postgres_url()
    if base is None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}"
        await upgrade_async(url)
        yield url
        return
    # One throw-away database per test on the PostgreSQL server.
    import asyncpg  # type: ignore[import-untyped]

    name = f"cardroom_test_{uuid.uuid4().hex[:12]}"
    admin_dsn = base.replace("postgresql+asyncpg", "postgresql")
    connection = await asyncpg.connect(admin_dsn)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    url = base.rsplit("/", 1)[0] + "/" + name
    await upgrade_async(url)
    yield url
    connection = await asyncpg.connect(admin_dsn)
    await connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    await connection.close()


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = Database.from_url(database_url)
    yield database
    await database.close()


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Database]:
    """A freshly migrated SQLite database whatever ``TEST_DATABASE_URL`` says: for what only
    SQLite has (its one connection, the plain-SQL press path)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'sqlite.db'}"
    await upgrade_async(url)
    database = Database.from_url(url)
    yield database
    await database.close()
