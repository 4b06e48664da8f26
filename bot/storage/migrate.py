"""Running the Alembic migrations from code (at start-up and in tests), and how every run
keeps the data: ``migrations/env.py`` runs each one through :func:`migration_engine` and
:func:`migration_transaction`.

* **One transaction.** Every migration of a run, and its checks, commit together or not at
  all, on SQLite too: its driver leaves DDL outside transactions unless told otherwise, which
  is how a failed rebuild once left a half-done table behind (issue 34).
* **SQLite: foreign keys off.** A batch migration rebuilds a table (copy, drop the old one,
  rename the copy); with foreign keys on, dropping ``games`` deleted every seat, action,
  result and rating change, and dropping ``users`` failed. So the migration connection turns
  them off before its transaction begins (the pragma cannot change inside one), and
  ``PRAGMA foreign_key_check`` must find nothing before the run commits.
* **PostgreSQL: one process at a time.** The run holds a transaction-level advisory lock
  (:data:`MIGRATION_LOCK`) before Alembic reads its version table, so processes that start
  together migrate once: the others wait, then find the schema up to date.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import logging
import socket
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from alembic import command
from alembic.config import Config
from alembic.script.revision import ResolutionError
from alembic.util.exc import CommandError
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

import migrations
from bot.storage.database import create_engine, ensure_sqlite_folder
from bot.storage.models import Base

logger = logging.getLogger(__name__)

#: The key of the PostgreSQL advisory lock that one migration run holds at a time (a fixed
#: number: the first 8 bytes of BLAKE2b("cardroom:migrations"), signed; the leader's lock,
#: in :mod:`bot.storage.leadership`, hashes "cardroom:<bot id>" the same way, so they differ).
MIGRATION_LOCK = int.from_bytes(
    hashlib.blake2b(b"cardroom:migrations", digest_size=8).digest(), "big", signed=True
)


class MigrationError(Exception):
    """The migrations could not run: the database could not be reached, opened or written,
    or a run would have left it inconsistent (and changed nothing).

    The message is one line that names the database, its password hidden, and what failed;
    :attr:`transient` says whether the fault may pass by itself (:func:`is_transient`): the
    server not reachable, or not up yet.
    """

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


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
    except MigrationError as error:  # raised by a run that changed nothing (its one line)
        raise MigrationError(
            f"could not bring the database {shown_url(url)} up to date: {error}"
        ) from error
    except (DBAPIError, OSError, CommandError) as error:
        newer = newer_revision(error)
        if newer is not None and not (missing := _missing_from(url)):
            # A newer release migrated it, and this one starts again before it is replaced
            # (a rolling upgrade, or going back a release): a release's migrations only
            # expand the schema (tests/storage/test_expand_only.py), so this one runs on it.
            logger.warning(
                "The database %s is at revision %s, which a newer release made; this release "
                "runs on it unchanged (a release's migrations keep the previous one working)",
                shown_url(url),
                newer,
            )
            return
        if newer is not None:
            raise MigrationError(
                f"the database {shown_url(url)} is at revision {newer}, which this release "
                f"does not know, and lacks what this release uses ({', '.join(missing[:5])}): "
                "run the release that made it"
            ) from error
        # The driver's whole message, for whoever asks for it; the error's message is one line.
        logger.debug("The migrations failed: %s: %s", type(error).__name__, error)
        raise MigrationError(
            f"could not bring the database {shown_url(url)} up to date: {failure_of(error)}",
            transient=is_transient(error),
        ) from error
    logger.info("Database schema is up to date")


def newer_revision(error: BaseException) -> str | None:
    """The database's revision, if ``error`` is Alembic not finding it among this release's
    (a newer release made it); else ``None``."""
    cause = error.__cause__ if isinstance(error, CommandError) else None
    if isinstance(cause, ResolutionError) and isinstance(cause.argument, str):
        return cause.argument
    return None


def _missing_from(url: str) -> list[str]:
    """The tables and columns of this release's models that the database at ``url`` lacks."""

    def missing(connection: Connection) -> list[str]:
        inspector = inspect(connection)
        tables = set(inspector.get_table_names())
        lacking = []
        for table in Base.metadata.sorted_tables:
            if table.name not in tables:
                lacking.append(table.name)
                continue
            columns = {column["name"] for column in inspector.get_columns(table.name)}
            lacking += [f"{table.name}.{c.name}" for c in table.columns if c.name not in columns]
        return lacking

    async def reflect() -> list[str]:
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(missing)
        finally:
            await engine.dispose()

    return asyncio.run(reflect())


async def upgrade_async(url: str) -> None:
    """:func:`upgrade` from async code (Alembic's env runs its own event loop in a thread)."""
    await asyncio.to_thread(upgrade, url)


def migration_engine(url: str) -> AsyncEngine:
    """The engine a migration run uses: the bot's (its SQLite pragmas set on connect), and on
    SQLite, SQLAlchemy's documented recipe for real transactions around DDL, with foreign keys
    turned off once the bot's pragmas have turned them on."""
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        # Listeners run in the order they were added: after the bot's, which set foreign_keys=ON.
        event.listen(engine.sync_engine, "connect", _sqlite_migration_connect)
        event.listen(engine.sync_engine, "begin", _sqlite_begin)
    return engine


def _sqlite_migration_connect(dbapi_connection: Any, _record: Any) -> None:
    # Left to itself the driver begins a transaction only before INSERT, UPDATE or DELETE,
    # and runs DDL outside one; without its BEGIN, _sqlite_begin begins every transaction and
    # the DDL is inside. Foreign keys go off here, before any transaction.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=OFF")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


@contextmanager
def migration_transaction(connection: Connection, applied: list[str]) -> Iterator[None]:
    """The one transaction of a migration run on ``connection`` (from
    :func:`migration_engine`), which Alembic runs inside: committed when the block ends,
    rolled back if it raises. ``applied`` is filled by the run with the revisions it applied.

    On PostgreSQL it first takes :data:`MIGRATION_LOCK`, waiting for a run of another process.
    On SQLite it requires foreign keys off, and before the commit checks that the run left no
    row pointing at nothing; else :class:`MigrationError` (nothing is changed). Foreign keys
    are back on when it ends.
    """
    sqlite = connection.dialect.name == "sqlite"
    try:
        with connection.begin():
            if sqlite:
                if connection.exec_driver_sql("PRAGMA foreign_keys").scalar():
                    raise MigrationError(
                        "SQLite's foreign keys could not be turned off for the migrations "
                        "(a rebuilt table would take its children's rows with it)"
                    )
            else:
                _lock_migrations(connection)
            yield
            if sqlite and applied:
                check_foreign_keys(connection)
    finally:
        if sqlite and not connection.invalidated:
            # Outside any transaction (where the pragma takes effect), on the driver itself.
            cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()


def _lock_migrations(connection: Connection) -> None:
    """Take :data:`MIGRATION_LOCK` for this transaction, waiting for whoever holds it."""
    lock = {"key": MIGRATION_LOCK}
    if not connection.execute(text("SELECT pg_try_advisory_xact_lock(:key)"), lock).scalar():
        logger.info("Another process is migrating the database; waiting for it to finish")
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), lock)


def check_foreign_keys(connection: Connection) -> None:
    """:class:`MigrationError` if a SQLite row points at a row that is not there (``PRAGMA
    foreign_key_check``), naming each table, what it points at and how many rows."""
    rows = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if rows:
        counts = Counter((row[0], row[2]) for row in rows)
        found = ", ".join(
            f"{table} -> {parent}: {count}" for (table, parent), count in sorted(counts.items())
        )
        raise MigrationError(
            f"the migrations would leave rows that point at no row ({found}); nothing was changed"
        )


def shown_url(url: str) -> str:
    """``url`` fit to print: its password, if it has one, replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a URL that is not one)"


#: The SQLSTATEs of faults that pass by themselves: no connection (class 08), the server
#: shutting down or starting up (57P01 to 57P03: "the database system is starting up"), too
#: many connections for now (53300).
TRANSIENT_SQLSTATES: Final = ("08", "57P01", "57P02", "57P03", "53300")
#: The errors of a network that does not lead to the server (yet).
UNREACHABLE: Final = frozenset(
    {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}
)


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` may pass by itself, so that trying again later may work: the
    server refuses connections or does not answer, its host name does not resolve (yet: a
    container's name resolves once it runs), it is starting up or shutting down, or it has
    too many connections for now. Anything else — a refused password, a role or database
    that does not exist, a file the bot may not write — is for the operator to fix.
    """
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        # asyncpg's errors carry a SQLSTATE, and so do SQLAlchemy's wrappers of them.
        sqlstate = getattr(
            cause.orig if isinstance(cause, DBAPIError) else cause, "sqlstate", None
        )
        if isinstance(sqlstate, str):
            return sqlstate.startswith(TRANSIENT_SQLSTATES)
        if isinstance(cause, ConnectionError | TimeoutError | socket.gaierror):
            return True
        if isinstance(cause, OSError) and cause.errno in UNREACHABLE:
            return True
        if isinstance(cause, DBAPIError) and cause.connection_invalidated:
            return True
        cause = cause.__cause__
    return False


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
