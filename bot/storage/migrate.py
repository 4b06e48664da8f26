"""Running the Alembic migrations from code (at start-up and in tests)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from alembic import command
from alembic.config import Config

import migrations
from bot.storage.database import ensure_sqlite_folder

logger = logging.getLogger(__name__)


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` pointing at the project's migrations."""
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema. Must not run inside an event loop."""
    ensure_sqlite_folder(url)
    command.upgrade(alembic_config(url), "head")
    logger.info("Database schema is up to date")


async def upgrade_async(url: str) -> None:
    """:func:`upgrade` from async code (Alembic's env runs its own event loop in a thread)."""
    await asyncio.to_thread(upgrade, url)
