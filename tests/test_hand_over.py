"""Handing the lead over (bot/serve.py): stop taking work, finish what is in hand and mark
it handled, write the calls made — and only then let the lock go; no Bot API call leaves a
process that does not lead."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.app import build_application
from bot.serve import Process
from bot.settings import Settings
from bot.storage.leadership import SqliteLeadership
from bot.telegram.sender.limiter import BudgetRateLimiter

TOKEN = "123456789:AAFakeTokenForCardroomTests-0123456789"


class Steps:
    """What the hand-over did, in order."""

    def __init__(self) -> None:
        self.done: list[str] = []

    def step(self, name: str, seconds: float = 0.0) -> Any:
        async def run(*_: object) -> None:
            await asyncio.sleep(seconds)
            self.done.append(name)

        return run


def stopping_process(steps: Steps) -> Process:
    """A leading process whose parts only say what was asked of them: an update in hand
    takes 0.2 s to finish."""
    process = object.__new__(Process)  # its hand-over only: no bot, no database
    process.role = "leader"
    process._server = None
    process._health_server = None
    process._polling = None
    process._tasks = set()
    process._started = True
    process.reader = SimpleNamespace(  # type: ignore[assignment]
        halt=lambda: steps.done.append("taking nothing more"),
        stop=steps.step("marking what was handled"),
        inbox=SimpleNamespace(record_calls=steps.step("writing the calls")),
    )
    budget = SimpleNamespace(journal=[(-100, 1.0)], now=lambda: 2.0)
    process.room = SimpleNamespace(  # type: ignore[assignment]
        publisher=SimpleNamespace(close=steps.step("dropping the deliveries"), budget=budget),
        notes=SimpleNamespace(close=steps.step("dropping the notes")),
        outbox=SimpleNamespace(close=steps.step("leaving the letters to the next leader")),
        poller=SimpleNamespace(stop=steps.step("no more deadlines")),
    )
    process.application = SimpleNamespace(  # type: ignore[assignment]
        running=True,
        stop=steps.step("finishing the update in hand", 0.2),
        post_shutdown=None,
        shutdown=steps.step("shut down"),
    )
    process.leadership = SimpleNamespace(  # type: ignore[assignment]
        release=steps.step("letting the lead go"), lost=asyncio.Event()
    )
    return process


async def test_the_lead_goes_only_once_what_is_in_hand_is_finished_and_marked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Else the next leader reads the same unmarked updates and answers them too."""
    caplog.set_level(logging.INFO)
    steps = Steps()
    await stopping_process(steps).hand_over()
    done = steps.done
    assert done.index("taking nothing more") == 0
    released = done.index("letting the lead go")
    for before in (
        "finishing the update in hand",
        "marking what was handled",
        "no more deadlines",
        "writing the calls",
    ):
        assert done.index(before) < released, f"{before} after the lead went: {done}"
    assert done[-1] == "shut down"
    # The notes dropped as they close are not marked delivered: the outbox is closed first.
    assert done.index("leaving the letters to the next leader") < done.index("dropping the notes")
    assert [r.levelno for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "Handed the lead over" in caplog.messages


async def test_what_does_not_finish_in_time_does_not_hold_the_lead(
    caplog: pytest.LogCaptureFixture,
) -> None:
    steps = Steps()
    process = stopping_process(steps)
    process.application.stop = steps.step("finishing a stuck update", 30.0)
    started = asyncio.get_running_loop().time()
    await process.hand_over()
    assert asyncio.get_running_loop().time() - started < 1.5
    assert "letting the lead go" in steps.done
    assert "Gave up finishing the updates in hand after 0.8 s" in caplog.messages


def test_each_bot_api_call_asks_the_leadership_first(tmp_path: Path) -> None:
    settings = Settings(
        telegram_bot_token=TOKEN,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'cardroom.db'}",
        _env_file=None,  # type: ignore[call-arg]
    )
    leadership = SqliteLeadership(settings.database_url)
    application = build_application(settings)
    Process(application, settings, leadership)
    limiter = application.bot.rate_limiter
    assert isinstance(limiter, BudgetRateLimiter)
    assert limiter.fence == leadership.leads


async def test_a_process_that_lost_the_lead_does_not_say_it_handed_it_over(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    steps = Steps()
    process = stopping_process(steps)
    process.leadership.lost.set()
    await process.hand_over()
    assert "Handed the lead over" not in caplog.messages
    assert "letting the lead go" in steps.done
