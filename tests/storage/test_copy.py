"""Copying a Cardroom database into another (``python -m bot copy-database``): every row of
every table comes through, the target takes new rows at once (its sequences are past the
copied ids), and whatever the copy cannot do safely it refuses, writing nothing.

The source is SQLite seeded as the migration ladder seeds it (rows in every table); the target
is SQLite always, and PostgreSQL with ``TEST_DATABASE_URL``.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.engine import Connection

from bot.__main__ import main
from bot.storage.copy import Copied, CopyRefused, copied_tables, copy_database
from bot.storage.leadership import SqliteLeadership
from bot.storage.models import Base
from tests.storage.test_migration_ladder import HEAD, REVISIONS, _on, climb

#: Every table a copy fills, by name.
TABLES = sorted(table.name for table in Base.metadata.sorted_tables)


@pytest.fixture
async def source(tmp_path: Path) -> str:
    """A SQLite database at the newest revision with rows in every table."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'source.db'}"
    await climb(url, HEAD)
    return url


def _same_moment(value: Any) -> Any:
    """A time as a moment (SQLite keeps UTC without its zone; PostgreSQL says the zone)."""
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _rows(connection: Connection) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, in primary key order, its values as the bot reads them."""
    return {
        table.name: [
            {name: _same_moment(value) for name, value in row.items()}
            for row in connection.execute(
                select(table).order_by(*table.primary_key.columns)
            ).mappings()
        ]
        for table in copied_tables()
    }


def _counts(connection: Connection) -> dict[str, int]:
    return {
        table.name: connection.execute(select(func.count()).select_from(table)).scalar_one()
        for table in copied_tables()
    }


def _add_one_more(connection: Connection) -> dict[str, int]:
    """A new row in each table whose ids the database gives, like one of its rows but for
    the values each unique constraint holds; the id each was given."""
    given = {}
    for table in copied_tables():
        key = list(table.primary_key.columns)
        if len(key) != 1 or key[0].autoincrement is False:
            continue  # ids from Telegram (users, chats, inbox): no sequence
        row = dict(connection.execute(select(table).limit(1)).mappings().one())
        del row[key[0].name]
        unique = [constraint.columns for constraint in table.constraints] + [
            index.columns for index in table.indexes if index.unique
        ]
        for columns in unique:
            free = [
                column for column in columns if not column.foreign_keys and not column.primary_key
            ]
            for column in free[:1]:
                value = row[column.name]
                row[column.name] = f"{value}-new" if isinstance(value, str) else value + 1000
        result = connection.execute(insert(table).values(**row))
        given[table.name] = result.inserted_primary_key[0]  # type: ignore[index]
    return given


def _said(copied: list[Copied]) -> dict[str, int]:
    return {table.table: table.rows for table in copied}


async def test_every_row_of_every_table_is_copied_and_the_target_takes_new_ones(
    source: str, empty_url: str
) -> None:
    before = await _on(source, _rows)
    assert sorted(before) == TABLES
    assert [name for name, rows in before.items() if not rows] == [], "seed every table"
    said: list[Copied] = []

    copied = await asyncio.to_thread(copy_database, source, empty_url, said.append)

    assert copied == said
    assert [table.table for table in said] == [table.name for table in copied_tables()]
    assert _said(said) == await _on(source, _counts) == await _on(empty_url, _counts)
    after = await _on(empty_url, _rows)
    for table in TABLES:
        assert after[table] == before[table], f"{table} differs"
    # The sequences are past the copied ids: a new row gets a new one.
    given = await _on(empty_url, _add_one_more)
    assert sorted(given) == [
        "actions",
        "games",
        "outbox",
        "rating_changes",
        "ratings",
        "results",
        "seats",
        "telegram_calls",
        "waitlist",
    ]
    for table, new_id in given.items():
        assert new_id > max(row["id"] for row in before[table]), table
    # And the source is as it was: only read.
    assert await _on(source, _rows) == before

    with pytest.raises(CopyRefused, match=r"is not empty \(actions: 29, .*copy into a new"):
        await asyncio.to_thread(copy_database, source, empty_url)


async def test_a_copy_that_fails_midway_leaves_the_target_empty(
    source: str, empty_postgres_url: str
) -> None:
    # SQLite keeps a name of any length; PostgreSQL holds users.first_name to 256 characters.
    long_name = "Anna" * 100
    await _on(
        source,
        lambda connection: connection.exec_driver_sql(
            f"UPDATE users SET first_name = '{long_name}' WHERE id = (SELECT max(id) FROM users)"
        ),
    )

    with pytest.raises(CopyRefused, match=r"could not copy the table users \(the target is left"):
        await asyncio.to_thread(copy_database, source, empty_postgres_url)

    assert set((await _on(empty_postgres_url, _counts)).values()) == {0}
    # Once the name is fixed, the same target takes the copy.
    await _on(
        source,
        lambda connection: connection.exec_driver_sql(
            "UPDATE users SET first_name = 'Anna' WHERE length(first_name) > 256"
        ),
    )
    await asyncio.to_thread(copy_database, source, empty_postgres_url)
    assert await _on(empty_postgres_url, _counts) == await _on(source, _counts)


async def test_a_source_not_at_the_newest_revision_is_refused_and_nothing_written(
    tmp_path: Path,
) -> None:
    old = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    await climb(old, REVISIONS[-2])
    target = tmp_path / "target.db"

    with pytest.raises(CopyRefused) as refused:
        await asyncio.to_thread(copy_database, old, f"sqlite+aiosqlite:///{target}")

    assert f"is at revision {REVISIONS[-2]}, not the newest ({HEAD})" in str(refused.value)
    assert "start this release's bot on it once" in str(refused.value)
    assert not target.exists()


async def test_a_source_that_is_not_there_is_refused_and_not_made(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    with pytest.raises(CopyRefused, match="there is no SQLite database at"):
        await asyncio.to_thread(
            copy_database, f"sqlite+aiosqlite:///{missing}", f"sqlite+aiosqlite:///{tmp_path}/t.db"
        )
    assert sorted(path.name for path in tmp_path.iterdir()) == []  # noqa: ASYNC240


async def test_a_bot_running_on_the_source_is_refused(source: str, tmp_path: Path) -> None:
    running = SqliteLeadership(source)  # as python -m bot claims its file
    running.claim()
    try:
        with pytest.raises(CopyRefused, match="a Cardroom bot is running on the source"):
            await asyncio.to_thread(
                copy_database, source, f"sqlite+aiosqlite:///{tmp_path / 'target.db'}"
            )
    finally:
        await running.release()


async def test_the_command_says_each_table_and_exits_by_what_happened(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"sqlite+aiosqlite:///{tmp_path / 'target.db'}"
    command = ["copy-database", "--from", source, "--to", target]

    assert await asyncio.to_thread(main, command) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    counts = await _on(source, _counts)
    assert lines[:-1] == [
        f"{table.name}: {counts[table.name]} row{'s' * (counts[table.name] != 1)}"
        for table in copied_tables()
    ]
    assert lines[-1].startswith(f"Copied {sum(counts.values())} rows in {len(TABLES)} tables")
    assert err == ""

    assert await asyncio.to_thread(main, command) == 2  # the target is not empty now
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("cardroom: the target ") and err.count("\n") == 1

    nowhere = "postgresql+asyncpg://cardroom:secret@127.0.0.1:1/cardroom"
    assert await asyncio.to_thread(main, ["copy-database", "--from", source, "--to", nowhere]) == 3
    err = capsys.readouterr().err
    assert "connection was refused" in err
    assert "secret" not in err
