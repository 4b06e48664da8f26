"""Databases the migration tests start from: empty, not migrated (SQLite, and PostgreSQL when
``TEST_DATABASE_URL`` names a server)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest


@asynccontextmanager
async def throwaway_postgres(base: str) -> AsyncIterator[str]:
    """A new, empty database on the PostgreSQL server of ``base``, dropped afterwards."""
    import asyncpg  # type: ignore[import-untyped]

    name = f"cardroom_test_{uuid.uuid4().hex[:12]}"
    admin_dsn = base.replace("postgresql+asyncpg", "postgresql")
    connection = await asyncpg.connect(admin_dsn)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()
    try:
        yield base.rsplit("/", 1)[0] + "/" + name
    finally:
        connection = await asyncpg.connect(admin_dsn)
        await connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await connection.close()


@pytest.fixture
async def empty_postgres_url() -> AsyncIterator[str]:
    """An empty PostgreSQL database; the test is skipped without ``TEST_DATABASE_URL``."""
    base = os.environ.get("TEST_DATABASE_URL")
    if not base:
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL")
    async with throwaway_postgres(base) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database of each engine (PostgreSQL skipped without ``TEST_DATABASE_URL``)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    base = os.environ.get("TEST_DATABASE_URL")
    if not base:
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL")
    async with throwaway_postgres(base) as url:
        yield url
