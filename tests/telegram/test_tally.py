"""A condition repeated thousands of times is said once a minute, with a count
(bot/telegram/tally.py)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.telegram.tally import LogTally

logger = logging.getLogger("tests.tally")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger.name]


def test_the_first_time_is_said_at_once_and_the_rest_of_the_minute_in_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger.name)
    clock = Clock()
    tally = LogTally(logger, logging.WARNING, "Refused %d in %.0f s: %d open", clock=clock)
    tally.add(7)
    assert lines(caplog) == ["Refused 1 in 0 s: 7 open"]
    for _ in range(8500):
        clock.now += 0.005
        tally.add(8)
    assert len(lines(caplog)) == 1, "a line per occurrence is what this is for"
    clock.now += 20.0  # a minute and more since the first line
    tally.add(9)
    assert lines(caplog)[1:] == ["Refused 8501 in 62 s: 9 open"]
    assert caplog.records[-1].levelno == logging.WARNING
    assert tally.total == 8502


async def test_a_count_is_said_when_its_minute_is_up_even_if_nothing_follows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger.name)
    tally = LogTally(logger, logging.INFO, "Closed %d in %.1f s (%s)", every=0.1)
    for _ in range(3):
        tally.add("the oldest")
    assert lines(caplog) == ["Closed 1 in 0.0 s (the oldest)"]
    await asyncio.sleep(0.2)
    assert lines(caplog)[1:] == ["Closed 2 in 0.0 s (the oldest)"]
    await asyncio.sleep(0.2)
    assert len(lines(caplog)) == 2, "nothing more to say"
