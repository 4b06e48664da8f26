"""The leader's call journal is judged by the database's clock, whatever each machine's own
clock says; and an update stored in the inbox is flushed to the disk before Telegram hears
it arrived."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from typing import Any

import pytest
from sqlalchemy import event

from bot.services.inbox import KEEP_CALLS, InboxService
from bot.storage.database import Database
from bot.storage.inbox import Calls
from bot.telegram.sender.budget import CallBudget, Limits, Priority

GROUP, PRIVATE = -100, 7


class SkewedClock:
    """A process' own clock: its event loop's, as far off as a machine's may be."""

    def __init__(self, skew: float) -> None:
        self.skew = skew

    def __call__(self) -> float:
        return time.monotonic() + self.skew


async def granted(budget: CallBudget, chat: int) -> bool:
    task = asyncio.create_task(budget.take(chat, Priority.TURN))
    await asyncio.sleep(0)
    if task.done():
        return True
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return False


async def test_a_new_leader_whose_clock_differs_keeps_the_windows(db: Database) -> None:
    """The old leader's machine runs an hour ahead, the new one's an hour behind: the calls
    the old one made a moment ago still fill the group's window for the new one."""
    limits = Limits(group_calls=3, group_window=60.0, reply_calls=3)
    ahead, behind = SkewedClock(3600.0), SkewedClock(-3600.0)
    old = CallBudget(limits, ahead)
    old.journal = []
    for _ in range(3):
        assert await granted(old, GROUP)
    leader = InboxService(db, clock=lambda: time.time() + 3600)
    await leader.record_calls(old.journal, ahead)

    new = CallBudget(limits, behind)
    standby = InboxService(db, clock=lambda: time.time() - 3600)
    new.restore(await standby.recent_calls(KEEP_CALLS, behind))
    assert not await granted(new, GROUP), "the group's window is full"
    assert await granted(new, PRIVATE)


async def test_each_call_keeps_its_age_from_one_clock_to_another(db: Database) -> None:
    writer, reader = SkewedClock(-50_000.0), SkewedClock(12_345.0)
    inbox = InboxService(db)
    now = writer()
    await inbox.record_calls([(GROUP, now - 50), (PRIVATE, now - 5)], writer)
    recent = await inbox.recent_calls(60, reader)
    read_at = reader()
    assert [chat for chat, _ in recent] == [GROUP, PRIVATE]
    ages = [read_at - at for _, at in recent]
    assert ages[0] == pytest.approx(50, abs=1.0)
    assert ages[1] == pytest.approx(5, abs=1.0)
    assert [chat for chat, _ in await inbox.recent_calls(30, reader)] == [PRIVATE]


async def test_calls_are_stored_by_the_databases_clock(db: Database) -> None:
    ahead = SkewedClock(7200.0)
    await InboxService(db).record_calls([(GROUP, ahead() - 10)], ahead)
    async with db.transaction() as session:
        calls = Calls(session)
        database_now = await calls.now()
        stored = await calls.since(0)
    assert database_now == pytest.approx(time.time(), abs=5.0)  # the same machine here
    assert [chat for chat, _ in stored] == [GROUP]
    assert database_now - stored[0][1] == pytest.approx(10, abs=1.0)


async def test_old_calls_are_tidied_by_the_databases_clock(db: Database) -> None:
    local = SkewedClock(-1_000_000.0)
    inbox = InboxService(db, clock=lambda: 0.0)  # a machine whose calendar is far off
    now = local()
    await inbox.record_calls([(GROUP, now - KEEP_CALLS - 60), (PRIVATE, now - 10)], local)
    await inbox.tidy()
    async with db.transaction() as session:
        assert [chat for chat, _ in await Calls(session).since(0)] == [PRIVATE]


async def test_an_update_is_stored_with_a_flush_to_the_disk(sqlite_db: Database) -> None:
    """The inbox's commit is synchronous=FULL (a power loss cannot take it back); the rest of
    the bot's transactions stay NORMAL."""
    async with sqlite_db.sqlite_transaction() as connection:
        raw: sqlite3.Connection = connection
    seen: dict[str, list[int]] = {"inbox": [], "telegram_calls": []}

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        for table, levels in seen.items():
            if statement.startswith(f"INSERT INTO {table} "):
                levels.append(raw.execute("PRAGMA synchronous").fetchone()[0])

    event.listen(sqlite_db.engine.sync_engine, "before_cursor_execute", before)
    inbox = InboxService(sqlite_db)
    update = {"update_id": 1, "message": {"chat": {"id": GROUP}, "text": "/help"}}
    assert [stored.update_id for stored in await inbox.take([update])] == [1]
    await inbox.record_calls([(GROUP, 0.0)], lambda: 0.0)
    assert seen == {"inbox": [2], "telegram_calls": [1]}, "FULL for the inbox alone"
    assert raw.execute("PRAGMA synchronous").fetchone()[0] == 1


async def test_a_failed_durable_transaction_leaves_the_connection_as_it_was(
    sqlite_db: Database,
) -> None:
    async with sqlite_db.sqlite_transaction() as connection:
        raw: sqlite3.Connection = connection
    with pytest.raises(RuntimeError):
        async with sqlite_db.transaction(durable=True):
            assert raw.execute("PRAGMA synchronous").fetchone()[0] == 2
            raise RuntimeError("refused")
    assert raw.execute("PRAGMA synchronous").fetchone()[0] == 1


async def test_the_inbox_flushes_its_commit_off_the_event_loops_thread(
    sqlite_db: Database,
) -> None:
    """The inbox's commit waits for the disk (tens of milliseconds on a busy one): it runs on
    a worker thread, and the loop serves pages and presses meanwhile; every other commit
    stays on the loop's thread, where SQLite answers in microseconds."""
    async with sqlite_db.sqlite_transaction() as connection:
        raw: sqlite3.Connection = connection
    commits: list[int] = []
    raw.set_trace_callback(
        lambda statement: commits.append(threading.get_ident()) if statement == "COMMIT" else None
    )
    loop = threading.get_ident()
    inbox = InboxService(sqlite_db)
    update = {"update_id": 1, "message": {"chat": {"id": GROUP}, "text": "/help"}}
    await inbox.take([update])
    assert len(commits) == 1 and commits[0] != loop, "the inbox's commit, off the loop"
    await inbox.record_calls([(GROUP, 0.0)], lambda: 0.0)
    assert len(commits) == 2 and commits[1] == loop, "any other, on it"
    raw.set_trace_callback(None)
