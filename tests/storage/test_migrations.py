"""The migrations and the models describe the same schema; a migration run changes all or
nothing, leaves no row pointing at nothing, and runs once however many processes start."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from bot.storage.database import Database, create_engine
from bot.storage.migrate import MigrationError, alembic_config, upgrade
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


def _sqlite_at(path: Path, revision: str) -> str:
    url = f"sqlite+aiosqlite:///{path}"
    command.upgrade(alembic_config(url), revision)
    return url


def _state(path: Path) -> tuple[str, list[str], list[tuple[str, int]]]:
    """The revision, the tables, and each column of ``games`` with its NOT NULL flag."""
    with sqlite3.connect(path) as connection:
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master")]
        games = [(row[1], row[3]) for row in connection.execute("PRAGMA table_info(games)")]
    return revision, sorted(tables), games


def test_a_failed_upgrade_on_sqlite_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = _sqlite_at(path, "0003")
    with sqlite3.connect(path) as connection:
        # In the way of 0007, after 0004 to 0006 have rebuilt and changed tables.
        connection.execute("CREATE TABLE waitlist (id INTEGER PRIMARY KEY)")
    before = _state(path)

    with pytest.raises(MigrationError, match="waitlist already exists") as raised:
        upgrade(url)

    assert "\n" not in str(raised.value)
    assert _state(path) == before, "the migrations that ran before the failure were kept"


def test_an_upgrade_that_would_leave_rows_pointing_at_nothing_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    url = _sqlite_at(path, "0005")
    with sqlite3.connect(path) as connection:  # foreign keys are off unless turned on
        connection.execute(
            "INSERT INTO seats (game_id, seat, user_id, name, timeouts) VALUES (404, 0, 7, '', 0)"
        )
    before = _state(path)

    with pytest.raises(MigrationError) as raised:
        upgrade(url)

    message = str(raised.value)
    assert "seats -> games: 1" in message and "seats -> users: 1" in message
    assert "nothing was changed" in message and "\n" not in message
    assert _state(path) == before


#: A process starting the bot, as far as the migrations go: it imports what a start imports,
#: says it is ready, and migrates when told to (all of them at once).
STARTING_PROCESS = """
import sys
import asyncpg, sqlalchemy.dialects.postgresql.asyncpg
import bot.storage.models, alembic.operations, alembic.runtime.migration
from bot.storage.migrate import upgrade
print("ready", flush=True)
sys.stdin.readline()
upgrade(sys.argv[1])
"""


@pytest.mark.parametrize("start", [None, "0005"], ids=["fresh", "older"])
async def test_processes_starting_together_on_postgresql_all_start(
    empty_postgres_url: str, start: str | None
) -> None:
    url = empty_postgres_url
    if start is not None:
        await asyncio.to_thread(command.upgrade, alembic_config(url), start)
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            STARTING_PROCESS,
            url,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=Path(__file__).parents[2],
        )
        for _ in range(4)
    ]
    try:
        async with asyncio.timeout(60):
            for process in processes:
                assert process.stdout is not None
                assert await process.stdout.readline() == b"ready\n"
            answers = await asyncio.gather(
                *(process.communicate(b"go\n") for process in processes)
            )
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
    failures = [
        err.decode().strip().splitlines()[-1]
        for process, (_, err) in zip(processes, answers, strict=True)
        if process.returncode != 0
    ]
    assert failures == []

    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            version = await connection.execute(text("SELECT version_num FROM alembic_version"))
            assert version.scalars().all() == [_head()]
    finally:
        await engine.dispose()


def _head() -> str:
    head = ScriptDirectory.from_config(alembic_config("sqlite+aiosqlite://")).get_current_head()
    assert head is not None
    return head
