"""Alembic environment: runs migrations over an async engine (SQLite or PostgreSQL).

Every online run is one transaction from :func:`bot.storage.migrate.migration_transaction`:
on SQLite with foreign keys off (batch rebuilds drop tables) and checked before it commits,
on PostgreSQL under an advisory lock (processes that start together migrate once).
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig
from typing import Any

from alembic import context
from sqlalchemy.engine import Connection

from bot.storage.migrate import migration_engine, migration_transaction
from bot.storage.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name)

target_metadata = Base.metadata


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        url = os.environ.get("DATABASE_URL", "sqlite+aiosqlite:///./data/cardroom.db")
    return url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True
    )
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    applied: list[str] = []

    def note(*, step: Any, **_: Any) -> None:
        applied.append(step.up_revision_id)  # the revision applied, or the one undone

    # Alembic sees a transaction already begun and runs every migration inside it; the DDL is
    # in it on SQLite too (migration_engine), hence transactional_ddl.
    with migration_transaction(connection, applied):
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,
            compare_type=True,
            transactional_ddl=True,
            on_version_apply=note,
        )
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = migration_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
