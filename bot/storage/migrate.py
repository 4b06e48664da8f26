"""Running the Alembic migrations from code (at start-up and in tests)."""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.util.exc import CommandError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

import migrations
from bot.storage.database import ensure_sqlite_folder

logger = logging.getLogger(__name__)


class MigrationError(Exception):
    """The migrations could not run: the database could not be reached, opened or written.

    The message is one line that names the database, its password hidden, and what failed.
    """


def alembic_config(url: str) -> Config:
    """An Alembic configuration for ``url`` pointing at the project's migrations."""
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


def upgrade(url: str) -> None:
    """Bring the database at ``url`` to the newest schema. Must not run inside an event loop.

    A database that cannot be reached, opened or written raises :class:`MigrationError`.
    """
    try:
        ensure_sqlite_folder(url)
        command.upgrade(alembic_config(url), "head")
    except (DBAPIError, OSError, CommandError) as error:
        # The driver's whole message, for whoever asks for it; the error's message is one line.
        logger.debug("The migrations failed: %s: %s", type(error).__name__, error)
        raise MigrationError(
            f"could not bring the database {shown_url(url)} up to date: {failure_of(error)}"
        ) from error
    logger.info("Database schema is up to date")


async def upgrade_async(url: str) -> None:
    """:func:`upgrade` from async code (Alembic's env runs its own event loop in a thread)."""
    await asyncio.to_thread(upgrade, url)


def shown_url(url: str) -> str:
    """``url`` fit to print: its password, if it has one, replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a URL that is not one)"


def failure_of(error: BaseException) -> str:
    """What went wrong, in words for the person starting the bot, with what to check."""
    if isinstance(error, ConnectionRefusedError):
        return "the connection was refused; is the database server running on that host and port?"
    if isinstance(error, socket.gaierror):
        return "its host name could not be found"
    if isinstance(error, TimeoutError):
        return "the connection timed out; is the database server reachable from here?"
    if isinstance(error, DBAPIError):
        # The driver's own message: SQLAlchemy's adds the statement and a link to its FAQ.
        said = str(error.orig or error).strip().splitlines()[0]
        if "readonly" in said or "read-only" in said:
            return f"{said}; let the bot's user write it (a SQLite file, and its folder too)"
        if "unable to open database file" in said:
            return f"{said}; does its folder exist, and may the bot's user write there?"
        return said
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
