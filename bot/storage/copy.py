"""Copying a whole Cardroom database into another, empty one: how an operator who outgrows one
machine moves from SQLite to PostgreSQL (``python -m bot copy-database --from URL --to URL``)
without losing a leaderboard, a history or an open game.

* **The source is only read**, in one transaction (one snapshot: on SQLite a read
  transaction, on PostgreSQL ``REPEATABLE READ``), so the copy is the database as it was at
  one moment, whatever else reads it. It must be at this release's newest revision: an older one is
  refused, with what to do (start this release's bot on it once, which upgrades it).
* **The target must be empty** (no row in any table but ``alembic_version``): it is brought to
  the newest schema, then every table is copied in foreign-key order, every row, in batches,
  all in one transaction — a copy that fails leaves the target as empty as it found it. On
  PostgreSQL each table's id sequence is then set past the highest id copied, so the bot's
  next row does not collide with a copied one. Before the commit, every table's count is
  compared with the source's.
* **A SQLite file is claimed** for the copy as the bot claims it (:mod:`.leadership`): a bot
  running on the source or the target is refused, and none can start on either meanwhile.

Every refusal is a :class:`CopyRefused` (the operator fixes something and runs it again), a
database that cannot be reached is a :class:`CopyUnreachable` (try again later): each with a
one-line message that never shows a password.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import JSON, DateTime, MetaData, Table, func, insert, inspect, select, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.storage.database import create_engine, is_sqlite
from bot.storage.leadership import AnotherProcess, SqliteLeadership
from bot.storage.migrate import (
    MigrationError,
    alembic_config,
    failure_of,
    is_transient,
    shown_url,
    upgrade,
)
from bot.storage.models import Base

logger = logging.getLogger(__name__)

#: Rows read and written at a time: a table of millions is never held in memory whole.
BATCH = 1000
#: The table Alembic keeps the schema's revision in: never copied (the target has its own).
VERSION_TABLE = "alembic_version"


class CopyRefused(Exception):
    """The copy cannot be made as asked (a source not at the newest revision, a target that
    is not empty, a file that is not there…): nothing was written. The message is one line."""


class CopyUnreachable(Exception):
    """A database could not be reached (refused, timed out, a host not found): nothing was
    written, and the same command may work later. The message is one line."""


@dataclass(frozen=True, slots=True)
class Copied:
    """One table copied: its name and its rows (as many in the source as in the target)."""

    table: str
    rows: int


def copy_database(
    source_url: str,
    target_url: str,
    on_table: Callable[[Copied], None] = lambda _copied: None,
) -> list[Copied]:
    """Copy every row of the Cardroom database at ``source_url`` into the empty one at
    ``target_url`` (brought to the newest schema first); each table as it is copied goes to
    ``on_table``. Must not run inside an event loop.

    Raises :class:`CopyRefused` or :class:`CopyUnreachable`; nothing is written to the
    target then (but its schema, if the failure came after the migrations).
    """
    _check_source_exists(source_url)
    claims = [_claim(url, role) for url, role in ((source_url, "source"), (target_url, "target"))]
    try:
        asyncio.run(_check_source(source_url))
        asyncio.run(_check_target_empty(target_url))
        try:
            upgrade(target_url)
        except MigrationError as error:
            fault = CopyUnreachable if error.transient else CopyRefused
            raise fault(str(error)) from error
        return asyncio.run(_copy(source_url, target_url, on_table))
    finally:
        for claim in claims:
            if claim is not None:
                asyncio.run(claim.release())


def _claim(url: str, role: str) -> SqliteLeadership | None:
    """The SQLite file at ``url`` claimed for the copy as a bot claims it, or ``None`` (not a
    SQLite file); :class:`CopyRefused` if a bot runs on it."""
    if not is_sqlite(url):
        return None
    claim = SqliteLeadership(url)
    if claim.path is None:
        return None
    try:
        claim.claim()
    except AnotherProcess:
        raise CopyRefused(
            f"a Cardroom bot is running on the {role} {shown_url(url)}: stop it first "
            "(what it wrote after the copy began would be lost)"
        ) from None
    except OSError as error:
        raise CopyRefused(
            f"could not lock the {role} {shown_url(url)}: {failure_of(error)}"
        ) from None
    return claim


def _check_source_exists(url: str) -> None:
    """A SQLite source that is no file is refused (opening it would make an empty one)."""
    if not is_sqlite(url):
        return
    database = make_url(url).database
    if database in (None, "", ":memory:") or not Path(database).expanduser().is_file():
        raise CopyRefused(f"there is no SQLite database at {shown_url(url)}: check --from")


def newest_revision() -> str:
    """The newest schema revision this release knows."""
    head = _scripts().get_current_head()
    assert head is not None, "the migrations have a head"
    return head


def _known_revisions() -> set[str]:
    return {script.revision for script in _scripts().walk_revisions()}


def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config("sqlite://"))


async def _check_source(url: str) -> None:
    """:class:`CopyRefused` unless the source is a Cardroom database at the newest revision."""
    head = newest_revision()
    revision = await _on(url, "source", _revision_of)
    if revision is None:
        raise CopyRefused(
            f"the source {shown_url(url)} is not a Cardroom database (it has no schema "
            "revision): check --from"
        )
    if revision not in _known_revisions():
        raise CopyRefused(
            f"the source {shown_url(url)} is at revision {revision}, which this release does "
            "not know (a newer release made it): copy it with that release"
        )
    if revision != head:
        raise CopyRefused(
            f"the source {shown_url(url)} is at revision {revision}, not the newest ({head}): "
            "start this release's bot on it once (it upgrades the database at start-up), "
            "stop it, then copy"
        )


async def _check_target_empty(url: str) -> None:
    """:class:`CopyRefused` if a table of the target (but Alembic's) holds a row."""
    filled = await _on(url, "target", _filled_tables)
    if filled:
        shown = ", ".join(f"{table}: {rows}" for table, rows in filled)
        raise CopyRefused(
            f"the target {shown_url(url)} is not empty ({shown}): copy into a new, empty database"
        )


def _revision_of(connection: Connection) -> str | None:
    if VERSION_TABLE not in inspect(connection).get_table_names():
        return None
    return MigrationContext.configure(connection).get_current_revision()


def _filled_tables(connection: Connection) -> list[tuple[str, int]]:
    """Each table of the database that holds rows (Alembic's aside), with its count."""
    metadata = MetaData()
    metadata.reflect(connection)
    filled = []
    for name, table in sorted(metadata.tables.items()):
        if name == VERSION_TABLE:
            continue
        rows = connection.execute(select(func.count()).select_from(table)).scalar_one()
        if rows:
            filled.append((name, rows))
    return filled


async def _on(url: str, role: str, work: Callable[[Connection], Any]) -> Any:
    """``work`` on a connection to ``url`` (the ``role`` database, as messages say it)."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(work)
    except (DBAPIError, OSError) as error:
        raise _failure(error, f"could not read the {role} {shown_url(url)}") from error
    finally:
        await engine.dispose()


def _failure(error: BaseException, what: str) -> CopyRefused | CopyUnreachable:
    """``error`` as the copy's one line, beginning with ``what``: unreachable (try again) or
    refused (fix something)."""
    line = f"{what}: {failure_of(error)}"
    if is_transient(error):
        return CopyUnreachable(line)
    return CopyRefused(line)


def copied_tables() -> list[Table]:
    """The tables a copy fills, parents before children: the models' (their columns as the
    newest schema has them), each JSON column writing a Python ``None`` as SQL NULL — as the
    source holds it — rather than as the JSON document ``null``."""
    metadata = MetaData()
    tables = [table.to_metadata(metadata) for table in Base.metadata.sorted_tables]
    for table in tables:
        for column in table.columns:
            if isinstance(column.type, JSON):
                column.type = JSON(none_as_null=True)
    return tables


async def _copy(
    source_url: str, target_url: str, on_table: Callable[[Copied], None]
) -> list[Copied]:
    source, target = create_engine(source_url), create_engine(target_url)
    copied: list[Copied] = []
    doing = "could not begin the copy"
    try:
        try:
            async with _snapshot(source) as reading, target.begin() as writing:
                refilled = await writing.run_sync(_filled_tables)
                if refilled:  # something wrote there since it was found empty
                    raise CopyRefused(
                        f"the target {shown_url(target_url)} is not empty any more "
                        f"({', '.join(name for name, _ in refilled)}): is a bot running on it?"
                    )
                to_postgres = writing.dialect.name == "postgresql"
                for table in copied_tables():
                    doing = f"could not copy the table {table.name}"
                    rows = await _copy_table(reading, writing, table, to_postgres)
                    counted = await _count(writing, table)
                    expected = await _count(reading, table)
                    if not rows == counted == expected:
                        raise RuntimeError(
                            f"{table.name}: {expected} rows in the source, {rows} copied, "
                            f"{counted} in the target; nothing was copied"
                        )
                    if to_postgres:
                        await _set_sequences(writing, table)
                    done = Copied(table.name, rows)
                    copied.append(done)
                    on_table(done)
                doing = "could not commit the copy"
        except (DBAPIError, OSError) as error:
            # Nothing was committed: the target is as empty as it was found.
            raise _failure(error, f"{doing} (the target is left empty)") from error
    finally:
        await source.dispose()
        await target.dispose()
    logger.info(
        "Copied %d rows in %d tables from %s to %s",
        sum(table.rows for table in copied),
        len(copied),
        shown_url(source_url),
        shown_url(target_url),
    )
    return copied


@asynccontextmanager
async def _snapshot(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection of ``engine`` inside one read transaction that sees one moment of the
    database, whatever writes it meanwhile; rolled back at the end (it wrote nothing)."""
    async with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            # The driver begins a transaction only before a write: without this BEGIN each
            # SELECT would read its own moment. In WAL mode the first read fixes the snapshot.
            await connection.exec_driver_sql("BEGIN")
            try:
                yield connection
            finally:
                await connection.exec_driver_sql("ROLLBACK")
        else:
            await connection.execution_options(isolation_level="REPEATABLE READ")
            async with connection.begin() as transaction:
                yield connection
                await transaction.rollback()


async def _copy_table(
    reading: AsyncConnection, writing: AsyncConnection, table: Table, to_postgres: bool
) -> int:
    """Every row of ``table``, in batches of :data:`BATCH`, in primary key order; how many."""
    key = list(table.primary_key.columns)
    aware = [
        column.name
        for column in table.columns
        if to_postgres and isinstance(column.type, DateTime) and column.type.timezone
    ]
    result = await reading.stream(select(table).order_by(*key))
    rows = 0
    async for batch in result.mappings().partitions(BATCH):
        values = [_fit(dict(row), aware) for row in batch]
        await writing.execute(insert(table), values)
        rows += len(values)
    return rows


def _fit(row: dict[str, Any], aware: Sequence[str]) -> dict[str, Any]:
    """``row`` as the target takes it: SQLite keeps time without its zone, and the bot writes
    it in UTC, so a time read from there is UTC (PostgreSQL would take it as its own zone)."""
    for name in aware:
        value = row[name]
        if isinstance(value, datetime) and value.tzinfo is None:
            row[name] = value.replace(tzinfo=UTC)
    return row


async def _count(connection: AsyncConnection, table: Table) -> int:
    return int((await connection.execute(select(func.count()).select_from(table))).scalar_one())


async def _set_sequences(connection: AsyncConnection, table: Table) -> None:
    """Set the sequence of each of ``table``'s serial columns past its highest value, so the
    next row the bot inserts gets a new id (copied rows kept theirs; the sequence never ran)."""
    for column in table.primary_key.columns:
        if column.autoincrement is False:  # ids that come from Telegram: no sequence
            continue
        await connection.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence(:table, :column), "
                f'COALESCE(MAX("{column.name}"), 0) + 1, false) FROM "{table.name}"'
            ),
            {"table": f'"{table.name}"', "column": column.name},
        )
