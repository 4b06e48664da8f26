"""SQLite runs on the event loop's thread, and still behaves as a DB-API driver should."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, OperationalError

from bot.storage import database
from bot.storage.database import Database
from bot.storage.inline_sqlite import InlineConnection
from bot.storage.models import ChatRow, UserRow


async def test_statements_run_on_the_loop_thread_without_a_worker(sqlite_db: Database) -> None:
    threads_before = threading.active_count()
    async with sqlite_db.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        assert isinstance(raw.driver_connection, InlineConnection)
        assert (await connection.execute(text("SELECT 1"))).scalar() == 1
    assert threading.active_count() == threads_before, "no aiosqlite thread was started"
    await sqlite_db.close()


async def test_pragmas_hold_on_the_inline_connection(sqlite_db: Database) -> None:
    async with sqlite_db.engine.connect() as connection:
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    await sqlite_db.close()


async def test_commit_rollback_and_generated_ids(sqlite_db: Database) -> None:
    async with sqlite_db.transaction() as session:
        session.add(UserRow(id=7, first_name="Anna"))
        session.add(ChatRow(id=-100, kind="group", title="Club", settings={}))
    with pytest.raises(RuntimeError):
        async with sqlite_db.transaction() as session:
            session.add(UserRow(id=8, first_name="Boris"))
            await session.flush()
            raise RuntimeError("the unit of work fails")
    async with sqlite_db.transaction() as session:
        names = (await session.execute(text("SELECT first_name FROM users"))).scalars().all()
        assert names == ["Anna"], "the failed transaction left nothing behind"
        await session.execute(text("CREATE TEMP TABLE notes (id INTEGER PRIMARY KEY, v TEXT)"))
        await session.execute(text("INSERT INTO notes (v) VALUES ('a')"))
        result = await session.execute(text("INSERT INTO notes (v) VALUES ('b')"))
        assert result.lastrowid == 2  # type: ignore[attr-defined]
        assert result.rowcount == 1  # type: ignore[attr-defined]
        await session.rollback()
    await sqlite_db.close()


async def test_driver_errors_become_sqlalchemy_errors(sqlite_db: Database) -> None:
    async with sqlite_db.transaction() as session:
        session.add(UserRow(id=7, first_name="Anna"))
    with pytest.raises(IntegrityError):
        async with sqlite_db.transaction() as session:
            session.add(UserRow(id=7, first_name="Anna again"))
    with pytest.raises(OperationalError):
        async with sqlite_db.transaction() as session:
            await session.execute(text("SELECT * FROM no_such_table"))
    async with sqlite_db.transaction() as session:
        assert (await session.execute(text("SELECT count(*) FROM users"))).scalar() == 1
    await sqlite_db.close()


async def test_a_closed_connection_refuses_work() -> None:
    connection = InlineConnection(sqlite3.connect(":memory:"))
    await connection.close()
    with pytest.raises(ValueError, match="no active connection"):
        connection.cursor()
    connection.stop()  # closing twice is harmless


async def test_transactions_take_turns_in_the_order_they_asked(sqlite_db: Database) -> None:
    """Ten tasks, each twenty transactions in a row, half through the ORM's session, half
    on the plain connection: none is overtaken by more transactions than there are other
    tasks. (The pool's queue alone let one wait while 177 of the 200 went first.)"""
    granted = 0
    overtaken = 0

    async def task(orm: bool) -> None:
        nonlocal granted, overtaken
        for _ in range(20):
            asked = granted
            if orm:
                async with sqlite_db.transaction() as session:
                    await session.execute(text("SELECT 1"))
                    granted += 1
                    overtaken = max(overtaken, granted - asked - 1)
            else:
                async with sqlite_db.sqlite_transaction() as connection:
                    connection.execute("SELECT 1")
                    granted += 1
                    overtaken = max(overtaken, granted - asked - 1)

    await asyncio.gather(*(task(orm=bool(n % 2)) for n in range(10)))
    await sqlite_db.close()
    assert granted == 200
    assert overtaken <= 9


async def test_a_failed_plain_transaction_writes_nothing(sqlite_db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with sqlite_db.sqlite_transaction() as connection:
            connection.execute(
                "INSERT INTO chats (id, kind, settings, created_at) VALUES "
                "(5, 'group', '{}', '2026-11-30')"
            )
            raise RuntimeError("the press was refused")
    async with sqlite_db.transaction() as session:
        assert await session.get(ChatRow, 5) is None
    await sqlite_db.close()


async def test_a_transaction_that_never_ends_does_not_hang_the_others(
    sqlite_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database, "TURN_WAIT", 0.05)
    holding = asyncio.Event()
    release = asyncio.Event()

    async def stuck() -> None:
        async with sqlite_db.transaction():
            holding.set()
            await release.wait()

    async def press() -> None:
        async with sqlite_db.sqlite_transaction():
            pass

    task = asyncio.create_task(stuck())
    await holding.wait()
    with pytest.raises(TimeoutError, match="waited 0 s"):
        await asyncio.wait_for(press(), 2)  # without the bound: waits for ever
    release.set()
    await task
    async with sqlite_db.sqlite_transaction() as connection:  # the turn was not lost
        assert connection.execute("SELECT 1").fetchone() == (1,)
    await sqlite_db.close()


async def test_a_flush_cancelled_midway_is_waited_for_before_the_connection_is_let_go() -> None:
    """Cancelled while the worker thread commits, the commit still holds the connection until
    the thread is done: a rollback or the next transaction must not run beside it."""
    done: list[bool] = []

    class SlowDisk:
        def commit(self) -> None:
            time.sleep(0.2)
            done.append(True)

    connection = InlineConnection(SlowDisk())  # type: ignore[arg-type]
    connection.flush_aside = True
    committing = asyncio.create_task(connection.commit())
    await asyncio.sleep(0.05)
    committing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await committing
    assert done == [True], "the thread's commit ended before the cancellation went on"
