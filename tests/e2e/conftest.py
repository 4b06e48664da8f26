"""End-to-end tests keep the log clean: an ERROR or a traceback means a bug."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def clean_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.WARNING, logger="apscheduler")
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], "\n".join(f"{r.name}: {r.getMessage()}" for r in errors)
