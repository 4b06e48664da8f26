"""The error handler keeps the log honest: a bug is an ERROR with its traceback; Telegram out
of reach (polling, or a reply lost on the way) is a WARNING of one line."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.telegram.handlers import handle_error


async def logged(caplog: pytest.LogCaptureFixture, update: object, error: Exception) -> Any:
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="bot.telegram.handlers"):
        await handle_error(update, SimpleNamespace(error=error))  # type: ignore[arg-type]
    (record,) = caplog.records
    return record


@pytest.mark.parametrize("error", [NetworkError("Server disconnected"), TimedOut()])
async def test_telegram_out_of_reach_is_a_warning_without_a_traceback(
    caplog: pytest.LogCaptureFixture, error: Exception
) -> None:
    polling = await logged(caplog, None, error)
    assert polling.levelno == logging.WARNING and polling.exc_info is None
    assert "Polling Telegram failed" in polling.getMessage()
    handling = await logged(caplog, object(), error)
    assert handling.levelno == logging.WARNING and handling.exc_info is None


@pytest.mark.parametrize("error", [BadRequest("Can't parse entities"), RuntimeError("bug")])
async def test_a_bad_request_or_any_other_error_is_a_bug(
    caplog: pytest.LogCaptureFixture, error: Exception
) -> None:
    record = await logged(caplog, object(), error)
    assert record.levelno == logging.ERROR and record.exc_info is not None
