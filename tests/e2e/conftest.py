"""End-to-end tests: the bot against the emulator (``harness``), and a clean log — an ERROR
or a traceback means a bug."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import Harness, sqlite_url
from tests.fakes import FakeBotApi


@pytest.fixture(autouse=True)
def clean_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.WARNING, logger="apscheduler")
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], "\n".join(f"{r.name}: {r.getMessage()}" for r in errors)


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot on a fresh SQLite file against a Bot API emulator without flood limits and
    with no pause between edits (modules that need other settings define their own)."""
    harness = Harness(FakeBotApi(flood_limits=False), sqlite_url(tmp_path))
    await harness.start()
    yield harness
    await harness.stop()
