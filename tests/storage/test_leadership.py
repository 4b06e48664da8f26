"""One leader per token: a PostgreSQL advisory lock on a connection of its own; SQLite's one
process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

import pytest

import bot.storage.leadership as leadership_module
from bot.storage.inbox import CHANNEL
from bot.storage.leadership import (
    RELEASE_SECONDS,
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


async def test_a_leader_knows_at_once_that_its_lock_is_gone(database_url: str) -> None:
    """The fence asks :meth:`leads` before every Bot API call: yes while the lock is held,
    no the moment its connection is ended (here by an operator), not at the next check."""
    needs_postgres(database_url)
    import asyncpg  # type: ignore[import-untyped]

    leader = PostgresLeadership(database_url, lock_key(TOKEN))
    assert not leader.leads()
    try:
        assert await leads_within(leader, 2)
        assert leader.leads()
        operator = await asyncpg.connect(leader.dsn)
        try:
            ended = time.monotonic()
            await operator.execute(
                "SELECT pg_terminate_backend($1)", leader._connection.get_server_pid()
            )
        finally:
            await operator.close()
        for _ in range(400):  # polled as the fence would: it asks before each call
            if not leader.leads():
                break
            await asyncio.sleep(0.005)
        assert not leader.leads()
        assert time.monotonic() - ended < 0.5, "before the next check (one a second)"
        await asyncio.wait_for(leader.lost.wait(), 1)
    finally:
        await leader.release()


async def test_a_leader_that_lets_go_leads_no_more(database_url: str) -> None:
    needs_postgres(database_url)
    leader = PostgresLeadership(database_url, lock_key(TOKEN))
    try:
        assert await leads_within(leader, 2)
        assert leader.leads()
    finally:
        await leader.release()
    assert not leader.leads()
    assert not leader.lost.is_set(), "let go, not lost"


async def test_stepping_down_while_a_check_is_in_flight_is_prompt_and_quiet(
    database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The lock's connection is checked without pause here, so that letting go meets a
    check in flight: the lead is let go within its bound, the lock is free at once, and
    nothing is logged as an error (a check cancelled mid-query used to be swallowed by
    ``wait_for`` and keep the watch — and the connection — alive)."""
    needs_postgres(database_url)
    monkeypatch.setattr(leadership_module, "CHECK_EVERY", 0.0)
    caplog.set_level(logging.DEBUG)
    for attempt in range(8):
        leader = PostgresLeadership(database_url, lock_key(TOKEN))
        successor = PostgresLeadership(database_url, lock_key(TOKEN))
        try:
            assert await leads_within(leader, 2)
            await asyncio.sleep(0.01 + attempt * 0.003)
            started = time.monotonic()
            letting_go = asyncio.create_task(leader.release())
            await asyncio.wait({letting_go}, timeout=2)  # waits, and cancels nothing
            assert letting_go.done(), "letting the lead go hangs"
            assert time.monotonic() - started <= RELEASE_SECONDS + 0.1
            assert await leads_within(successor, 1), "the lock is free once let go"
        finally:
            # Bounded without cancelling: a release that hangs fails the test, not the run.
            await asyncio.wait({asyncio.create_task(leader.release())}, timeout=2)
            await successor.release()
    import gc

    gc.collect()  # a future whose error nobody read is logged as it is collected
    await asyncio.sleep(0.05)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert not [r for r in caplog.records if r.name == "bot.storage.leadership"], (
        "a clean step-down says nothing"
    )


def test_the_one_sqlite_process_leads(tmp_path: Path) -> None:
    leadership = SqliteLeadership(f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}")
    leadership.claim()
    assert leadership.leads()
    asyncio.run(leadership.release())
    assert not leadership.leads()


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
