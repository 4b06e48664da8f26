"""The migrations and the models describe the same schema."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection

from bot.storage.database import Database
from bot.storage.models import Base


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, Base.metadata))


async def test_migrated_schema_matches_the_models(db: Database) -> None:
    async with db.engine.connect() as connection:
        diff = await connection.run_sync(_diff)
    assert diff == []


async def test_sqlite_pragmas_are_set_on_every_connection(db: Database) -> None:
    if not db.is_sqlite:
        pytest.skip("SQLite pragmas only")
    async with db.engine.connect() as connection:
        journal = (await connection.execute(text("PRAGMA journal_mode"))).scalar()
        foreign_keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar()
        synchronous = (await connection.execute(text("PRAGMA synchronous"))).scalar()
        busy = (await connection.execute(text("PRAGMA busy_timeout"))).scalar()
    assert (journal, foreign_keys, synchronous, busy) == ("wal", 1, 1, 5000)
