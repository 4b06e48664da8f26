"""A bot process's own chores (bot/serve.py)."""

from __future__ import annotations

import asyncio

from bot.serve import Process


async def test_what_runs_beside_the_updates_is_forgotten_once_done() -> None:
    """A standby hears of every Davay-ka! state by NOTIFY and pushes it in a task of its
    own: a long-running process must not keep them all."""
    process = object.__new__(Process)  # its chores only: no bot, no database
    process._tasks = set()
    for _ in range(100):
        process._spawn(asyncio.sleep(0), "app-note")
    await asyncio.sleep(0.01)
    assert process._tasks == set()
    process._spawn(asyncio.sleep(60), "journal")
    assert len(process._tasks) == 1
    for task in process._tasks:
        task.cancel()
