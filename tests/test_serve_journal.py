"""The leader writes its calls behind it, dated by its budget's clock; while the database
refuses, it keeps only the calls the next leader would still read."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from bot import serve
from bot.services.inbox import KEEP_CALLS
from bot.telegram.sender.budget import CallBudget, Limits

GROUP = -100


class Clock:
    def __init__(self) -> None:
        self.now = 5_000.0

    def __call__(self) -> float:
        return self.now


async def test_the_journal_is_written_with_the_budgets_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(serve, "JOURNAL_EVERY", 0.0)
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    budget.journal = [(GROUP, clock.now - 1)]
    written: list[tuple[list[tuple[int, float]], float]] = []
    done = asyncio.Event()

    async def record(calls: list[tuple[int, float]], by: Callable[[], float]) -> None:
        written.append((calls, by()))
        done.set()

    task = asyncio.create_task(serve._write_calls(budget, record))
    try:
        await asyncio.wait_for(done.wait(), 2.0)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert written == [([(GROUP, clock.now - 1)], clock.now)]


async def test_calls_not_written_are_kept_only_while_a_next_leader_would_read_them(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(serve, "JOURNAL_EVERY", 0.0)
    clock = Clock()
    budget = CallBudget(Limits(), clock)
    old, recent = (GROUP, clock.now - KEEP_CALLS - 1), (GROUP, clock.now - 5)
    budget.journal = [old, recent]
    tries = 0
    tried_again = asyncio.Event()

    async def refused(calls: list[tuple[int, float]], by: Callable[[], float]) -> None:
        nonlocal tries
        tries += 1
        if tries == 2:
            tried_again.set()
        raise OSError("disk full")

    task = asyncio.create_task(serve._write_calls(budget, refused))
    try:
        await asyncio.wait_for(tried_again.wait(), 2.0)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert budget.journal == [recent]
    assert "Could not write" in caplog.text
