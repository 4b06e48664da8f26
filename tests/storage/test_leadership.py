"""One leader per token: a PostgreSQL advisory lock on a connection of its own; SQLite's one
process."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import pytest

from bot.storage.inbox import CHANNEL
from bot.storage.leadership import (
    AnotherProcess,
    PostgresLeadership,
    SqliteLeadership,
    lock_key,
)

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"


def needs_postgres(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL: set TEST_DATABASE_URL (CI does when a server answers)")


async def leads_within(leadership: PostgresLeadership, seconds: float) -> bool:
    stopping = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stopping.set)
    return await leadership.acquire(stopping)


async def test_one_leader_at_a_time_and_the_next_one_when_it_lets_go(database_url: str) -> None:
    needs_postgres(database_url)
    first = PostgresLeadership(database_url, lock_key(TOKEN))
    second = PostgresLeadership(database_url, lock_key(TOKEN))
    other_bot = PostgresLeadership(database_url, lock_key("987:" + "b" * 35))
    try:
        assert await leads_within(first, 2)
        assert not await leads_within(second, 1.2), "one leader per token"
        assert await leads_within(other_bot, 2), "another bot leads its own"
        await first.release()
        started = time.monotonic()
        assert await leads_within(second, 3)
        assert time.monotonic() - started < 1.5
    finally:
        for leadership in (first, second, other_bot):
            await leadership.release()


async def test_a_leader_that_falls_silent_loses_the_lead(database_url: str) -> None:
    """Its machine died or was cut off: no word from its session, which PostgreSQL ends."""
    needs_postgres(database_url)
    silent = PostgresLeadership(database_url, lock_key(TOKEN))
    successor = PostgresLeadership(database_url, lock_key(TOKEN))
    try:
        assert await leads_within(silent, 2)
        assert silent._watch is not None
        silent._watch.cancel()  # it says nothing more, and its socket stays open
        with contextlib.suppress(asyncio.CancelledError):
            await silent._watch
        silent._watch = None
        started = time.monotonic()
        assert await leads_within(successor, 10)
        assert time.monotonic() - started < 6
    finally:
        for leadership in (silent, successor):
            await leadership.release()


async def test_the_leader_hears_what_standbys_store(database_url: str) -> None:
    needs_postgres(database_url)
    import asyncpg  # type: ignore[import-untyped]

    leader = PostgresLeadership(database_url, lock_key(TOKEN))
    woken = asyncio.Event()
    leader.on_stored(woken.set)
    try:
        assert await leads_within(leader, 2)
        standby = await asyncpg.connect(leader.dsn)
        try:
            await standby.execute(f"NOTIFY {CHANNEL}")
        finally:
            await standby.close()
        await asyncio.wait_for(woken.wait(), 5)
    finally:
        await leader.release()


def test_one_process_per_sqlite_file(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}"
    first, second = SqliteLeadership(url), SqliteLeadership(url)
    first.claim()
    with pytest.raises(AnotherProcess) as refused:
        second.claim()
    assert "PostgreSQL" in str(refused.value)
    asyncio.run(first.release())
    second.claim()  # free again once the first lets go
    asyncio.run(second.release())
